"""Settings: defaults, environment and .env, and bad values that name their key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docent.config import ConfigError, describe, load_settings

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_match_the_contract():
    s = load_settings()
    assert (s.max_turns, s.max_tool_calls, s.max_context_chars, s.top_k) == (6, 3, 60000, 5)
    assert (s.tool_retries, s.llm_retries) == (3, 2)
    assert s.effective_provider == "extractive"


def test_environment_and_dotenv(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("DOCENT_MAX_TURNS=4\nDOCENT_TOP_K=7\n")
    monkeypatch.setenv("DOCENT_TOP_K", "9")
    s = load_settings()
    assert s.max_turns == 4 and s.top_k == 9  # environment wins over .env


def test_a_dotenv_file_that_is_not_utf8_is_named(monkeypatch, tmp_path):
    # Windows Notepad's "Unicode" is UTF-16: its byte-order mark is no UTF-8.
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_bytes("DOCENT_TOP_K=7\n".encode("utf-16"))
    with pytest.raises(ConfigError, match=r"\.env is not UTF-8 text \(invalid byte at offset 0\)"
                       r": save it as UTF-8"):
        load_settings()
    (tmp_path / ".env").write_bytes("\ufeffDOCENT_TOP_K=7\n".encode())  # UTF-8 with a BOM
    assert load_settings().top_k == 7


def test_google_key_picks_gemini_and_is_masked(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza-secret")
    s = load_settings()
    assert s.effective_provider == "gemini"
    shown = describe(s)
    assert shown["GOOGLE_API_KEY"] == "********" and "AIza" not in str(shown)


@pytest.mark.parametrize(
    "key, value",
    [("DOCENT_MAX_TURNS", "abc"), ("DOCENT_TOP_K", "0"), ("DOCENT_LLM_PROVIDER", "gpt"),
     ("DOCENT_DOCS_BASE_URL", "not a url")],
)
def test_bad_value_names_the_key(monkeypatch, key, value):
    monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError, match=key):
        load_settings()


# Names Chroma (chromadb 1.5.9) rejects at ingest time, and names it accepts.
BAD_COLLECTIONS = [
    "-abc-", "..abc", "abc..def", "_abc", "abc_", "abc.", ".abc", "ab", "a" * 513, "a b",
    "ábc", "abc\n", "192.168.1.1", "0.0.0.0", "255.255.255.255",
]
GOOD_COLLECTIONS = [
    "docent", "abc", "a.b", "a_b-c.d", "My-Docs_2.0", "a" * 64, "a" * 506, "1.2.3",
    "01.2.3.4", "256.1.1.1", "1.2.3.4.5",
]


@pytest.mark.parametrize("name", [*BAD_COLLECTIONS, "abc+def"])
def test_collection_names_chroma_rejects_name_the_key(monkeypatch, name):
    # "abc+def" is Chroma's "topology+name" form: refused here, docent uses plain names.
    monkeypatch.setenv("DOCENT_COLLECTION", name)
    with pytest.raises(ConfigError, match="DOCENT_COLLECTION"):
        load_settings()


@pytest.mark.parametrize("name", GOOD_COLLECTIONS)
def test_collection_names_chroma_accepts_pass(monkeypatch, name):
    monkeypatch.setenv("DOCENT_COLLECTION", name)
    assert load_settings().collection == name


def test_a_collection_name_leaves_room_for_its_units_companion(monkeypatch):
    monkeypatch.setenv("DOCENT_COLLECTION", "a" * 507)  # Chroma takes it; "<name>-units" not
    with pytest.raises(ConfigError, match="DOCENT_COLLECTION.*at most 506.*-units"):
        load_settings()


def test_collection_rule_agrees_with_the_installed_chroma(tmp_path):
    from docent.retrieval.store import make_client

    client = make_client(load_settings(data_dir=tmp_path))
    verdicts = {}
    for name in BAD_COLLECTIONS + GOOD_COLLECTIONS:
        try:
            client.get_or_create_collection(name)
            verdicts[name] = True
        except Exception:  # chromadb's InvalidArgumentError (its class moved between releases)
            verdicts[name] = False
    assert verdicts == {**dict.fromkeys(BAD_COLLECTIONS, False),
                        **dict.fromkeys(GOOD_COLLECTIONS, True)}


def test_bad_collection_exits_2_with_one_line_naming_the_key(tmp_path):
    env = {"PATH": "", "HOME": str(tmp_path), "DOCENT_COLLECTION": "abc..def"}
    bad = subprocess.run([sys.executable, str(ROOT / "config.py")], capture_output=True,
                         text=True, env=env, cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1 and "DOCENT_COLLECTION" in bad.stderr


def test_config_script_prints_masked_settings_and_fails_cleanly(tmp_path):
    env = {"PATH": "", "GOOGLE_API_KEY": "AIza-secret", "HOME": str(tmp_path)}
    ok = subprocess.run([sys.executable, str(ROOT / "config.py")], capture_output=True,
                        text=True, env=env, cwd=tmp_path)
    assert ok.returncode == 0 and "DOCENT_MAX_TOOL_CALLS" in ok.stdout
    assert "AIza-secret" not in ok.stdout and "********" in ok.stdout
    bad = subprocess.run([sys.executable, str(ROOT / "config.py")], capture_output=True,
                         text=True, env={**env, "DOCENT_MAX_TURNS": "-1"}, cwd=tmp_path)
    assert bad.returncode == 2 and "DOCENT_MAX_TURNS" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_example_env_lists_every_setting():
    example = (ROOT / ".env.example").read_text()
    for key in describe(load_settings()):
        if not key.startswith("("):
            assert f"{key}=" in example, key


def test_a_redis_url_is_masked_and_a_bad_one_names_the_key_not_the_password(monkeypatch):
    monkeypatch.setenv("DOCENT_REDIS_URL", "redis://:hunter2@redis.internal:6379/0")
    assert describe(load_settings())["DOCENT_REDIS_URL"] == "********"
    monkeypatch.setenv("DOCENT_REDIS_URL", "http://:hunter2@redis.internal:6379/0")
    with pytest.raises(ConfigError, match="DOCENT_REDIS_URL") as failed:
        load_settings()
    assert "hunter2" not in str(failed.value)
