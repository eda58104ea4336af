# Two commands on a fresh machine: `make run` serves docent, `make test` passes the tests.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test ingest install lint bench eval clean

run: ingest  ## install, ingest docs/ and serve on http://127.0.0.1:8000
	$(BIN)/docent serve

test: ingest  ## the same set-up, then the whole test suite
	$(BIN)/pytest

ingest: install  ## index docs/ (unchanged files are skipped)
	$(BIN)/docent ingest docs --quiet

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "docent needs Python 3.11 or newer"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: install
	$(BIN)/ruff check src tests bench ingest.py config.py
	$(BIN)/mypy src

bench: ingest
	$(BIN)/python bench/bench.py

clean:
	rm -rf $(VENV) .docent

EVAL_DIR ?= ../shared/eval

eval: install  ## answer quality on the shared corpora; JSON reports in bench/results/
	@if [ ! -d "$(EVAL_DIR)" ]; then \
		echo "make eval: $(EVAL_DIR) not found; skipping (it holds the evaluation corpora)"; \
		exit 0; \
	fi; \
	mkdir -p bench/results; \
	for corpus in fastapi somnia; do \
		dir="$(EVAL_DIR)/$$corpus"; \
		if [ ! -f "$$dir/qa_dev.jsonl" ]; then \
			echo "make eval: $$dir/qa_dev.jsonl not found; skipping $$corpus"; continue; \
		fi; \
		followups=""; \
		if [ -f "$$dir/qa_followup.jsonl" ]; then followups="--followups $$dir/qa_followup.jsonl"; fi; \
		$(BIN)/docent eval --docs "$$dir/docs" --qa "$$dir/qa_dev.jsonl" $$followups \
			--out "bench/results/eval-$$corpus.json" || exit 1; \
	done
