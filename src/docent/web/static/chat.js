/* docent web chat: the core shared by the page (/) and the widget (/widget.js).
 *
 * Streams POST /chat/stream with fetch (EventSource cannot POST), shows tokens as plain
 * text, then swaps in the server's sanitised `response_html` from the terminal event.
 * The conversation lives in memory only: no localStorage, no cookies.
 * Everything a user or a document wrote reaches the DOM as text (textContent); the only
 * HTML inserted is `response_html`, rendered by docent with raw HTML disabled.
 */
(function () {
  "use strict";
  if (window.DocentChat) return;

  var MAX_SELECTION = 10000;
  var STATUS = { thinking: "Thinking…", searching: "Searching the docs…" };

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === false || value == null) return;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    });
    for (var i = 2; i < arguments.length; i++) {
      if (arguments[i] != null) node.append(arguments[i]);
    }
    return node;
  }

  function isSafeHref(url) {
    try {
      return /^https?:$/.test(new URL(url, location.href).protocol);
    } catch (e) {
      return false;
    }
  }

  /* --- Server-sent events over a fetch body ------------------------------------ */

  function parseFrame(block) {
    var frame = { event: "message", data: "" };
    var seen = false;
    block.split(/\r\n|\n|\r/).forEach(function (line) {
      if (!line || line[0] === ":") return; // comment lines are keep-alive pings
      var at = line.indexOf(":");
      var field = at < 0 ? line : line.slice(0, at);
      var value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
      if (field === "event") frame.event = value;
      else if (field === "data") frame.data += (seen ? "\n" : "") + value;
      else return;
      seen = true;
    });
    return seen ? frame : null;
  }

  /* Calls onFrame for each frame; frames of one network chunk are handled in one task,
     so the browser never paints the states in between (no flicker on cached answers). */
  async function readEvents(body, onFrame) {
    var reader = body.pipeThrough(new TextDecoderStream()).getReader();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += chunk.value;
      var blocks = buffer.split(/\r\n\r\n|\n\n|\r\r/);
      buffer = blocks.pop();
      blocks.map(parseFrame).forEach(function (f) { if (f) onFrame(f); });
    }
    var last = parseFrame(buffer);
    if (last) onFrame(last);
  }

  /* --- One question and its answer --------------------------------------------- */

  function Turn(question, selection) {
    this.question = question;
    this.selection = selection;
    this.status = el("p", { class: "dc-status", role: "status" });
    this.body = el("div", { class: "dc-body", "aria-live": "polite" });
    this.actions = el("div", { class: "dc-actions" });
    this.sources = el("div", { class: "dc-sources-wrap" });
    this.node = el("article", { class: "dc-turn", "data-state": "running" },
      el("p", { class: "dc-q" }, el("span", { class: "dc-sr", text: "You asked: " }), question),
      selection ? el("blockquote", { class: "dc-quote", text: selection }) : null,
      el("div", { class: "dc-a" }, this.status, this.body, this.actions, this.sources));
  }

  Turn.prototype.reset = function () {
    this.tokens = 0;
    this.body.textContent = "";
    this.body.className = "dc-body dc-streaming";
    this.body.setAttribute("aria-busy", "true");
    this.actions.textContent = "";
    this.sources.textContent = "";
    this.node.classList.remove("dc-warn");
    delete this.node.dataset.exit;
    delete this.node.dataset.cached;
    this.setState("running");
    this.setStatus(STATUS.thinking, true);
  };

  Turn.prototype.setState = function (state) {
    this.node.dataset.state = state;
  };

  Turn.prototype.setStatus = function (text, busy) {
    this.status.hidden = !text;
    this.status.textContent = text || "";
    this.status.classList.toggle("dc-busy", !!busy);
  };

  Turn.prototype.append = function (text) {
    if (!this.tokens) this.setStatus("");
    this.tokens += 1;
    this.body.append(text);
  };

  Turn.prototype.done = function (state, note) {
    this.body.setAttribute("aria-busy", "false");
    this.body.classList.remove("dc-streaming");
    this.setState(state);
    this.setStatus("");
    if (note) this.actions.append(el("p", { class: "dc-note", text: note }));
    this.node.dataset.tokens = String(this.tokens || 0);
  };

  Turn.prototype.addAction = function (label, onClick, extra) {
    var button = el("button", Object.assign({ type: "button", class: "dc-btn", onclick: onClick },
      extra || {}), label);
    this.actions.append(button);
    return button;
  };

  /* --- The chat ------------------------------------------------------------------ */

  function mount(root, options) {
    options = options || {};
    var api = String(options.api || "").replace(/\/+$/, "");
    var session = null; // session_id from the last answer: follow-ups continue it
    var running = null; // { turn, controller } while an answer streams
    var selection = "";

    // The page's main heading; inside a host page's widget, a section heading.
    var title = el(options.onClose ? "h2" : "h1", { class: "dc-title" },
      options.title || "Ask the docs");
    var newButton = el("button", { type: "button", class: "dc-btn dc-new", onclick: function () {
      newConversation();
      input.focus();
    } }, "New conversation");
    var head = el("header", { class: "dc-head" },
      el("div", { class: "dc-brand" }, title,
        el("p", { class: "dc-sub", text: "Answers from the documentation, with sources." })),
      newButton);
    if (options.onClose) {
      head.append(el("button", { type: "button", class: "dc-btn dc-close",
        "aria-label": "Close", onclick: options.onClose }, "×"));
    }
    var intro = el("div", { class: "dc-intro" },
      el("p", { text: "Ask a question about the documentation. Every answer lists the " +
        "sources it was written from; the numbers in brackets link to them." }));
    var log = el("div", { class: "dc-log", role: "log", "aria-label": "Conversation" });
    var logInner = el("div", { class: "dc-log-inner" }, intro);
    log.append(logInner);

    var quote = el("span", { class: "dc-chip-text" });
    var chip = el("div", { class: "dc-chip", hidden: true },
      el("span", { class: "dc-chip-label", text: "About:" }), quote,
      el("button", { type: "button", class: "dc-chip-x", "aria-label": "Remove the selection",
        onclick: function () { setSelection(""); input.focus(); } }, "×"));
    var inputId = "dc-input-" + Math.random().toString(36).slice(2, 8);
    var input = el("textarea", { id: inputId, class: "dc-input", rows: "1",
      placeholder: "Ask a question…", "aria-describedby": inputId + "-hint",
      maxlength: "10000", enterkeyhint: "send" });
    var send = el("button", { type: "submit", class: "dc-btn dc-primary dc-send", disabled: true },
      "Send");
    var stop = el("button", { type: "button", class: "dc-btn dc-stop", hidden: true,
      onclick: function () { stopAnswer(); input.focus(); } }, "Stop");
    var form = el("form", { class: "dc-form", onsubmit: function (e) {
      e.preventDefault();
      submit();
    } },
      chip,
      el("label", { class: "dc-sr", for: inputId, text: "Your question" }),
      el("div", { class: "dc-row" }, input, send, stop),
      el("p", { class: "dc-hint", id: inputId + "-hint",
        text: "Enter to send · Shift+Enter for a new line" }));

    var shell = el("div", { class: "docent" }, head, log, form);
    root.append(shell);

    input.addEventListener("input", function () { autosize(); refresh(); });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        submit();
      } else if (e.key === "Escape" && running && !options.onClose) {
        stopAnswer();
      }
    });

    function autosize() {
      input.style.height = "auto";
      input.style.height = Math.min(input.scrollHeight, 160) + "px";
    }

    function refresh() {
      send.disabled = !!running || !input.value.trim();
      send.hidden = !!running;
      stop.hidden = !running;
    }

    function nearBottom() {
      return log.scrollHeight - log.scrollTop - log.clientHeight < 80;
    }

    /* Keep up with a growing answer, but never scroll its question out of view: a long
       answer is read from the top. */
    function follow(wasNear, turn) {
      if (!wasNear) return;
      var bottom = log.scrollHeight - log.clientHeight;
      log.scrollTop = Math.max(log.scrollTop, Math.min(bottom, turn.node.offsetTop - 12));
    }

    function setSelection(text) {
      selection = String(text || "").trim().slice(0, MAX_SELECTION);
      quote.textContent = selection.length > 140 ? selection.slice(0, 139) + "…" : selection;
      quote.title = selection;
      chip.hidden = !selection;
    }

    function submit() {
      var question = input.value.trim();
      if (!question || running) return; // EMPTY_INPUT never reaches the server
      var turn = new Turn(question, selection);
      intro.hidden = true;
      logInner.append(turn.node);
      input.value = "";
      autosize();
      setSelection("");
      log.scrollTop = log.scrollHeight;
      run(turn);
    }

    function stopAnswer() {
      if (running) running.controller.abort();
    }

    function newConversation(prefill) {
      stopAnswer();
      session = null;
      logInner.textContent = "";
      intro.hidden = false;
      logInner.append(intro);
      setSelection("");
      input.value = prefill || "";
      autosize();
      refresh();
    }

    async function run(turn) {
      var controller = new AbortController();
      running = { turn: turn, controller: controller };
      refresh();
      turn.reset();
      var body = { message: turn.question };
      if (session) body.session_id = session;
      if (turn.selection) body.selected_text = turn.selection;
      var final = null;
      try {
        var res = await fetch(api + "/chat/stream", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
          body: JSON.stringify(body),
          signal: controller.signal,
          credentials: "omit",
        });
        if (!res.ok) {
          await httpError(turn, res);
          return;
        }
        await readEvents(res.body, function (frame) {
          var data;
          try { data = JSON.parse(frame.data); } catch (e) { return; }
          var wasNear = nearBottom();
          if (frame.event === "on_tool_start") {
            turn.body.textContent = ""; // text before a search was the model thinking aloud
            turn.tokens = 0;
            turn.setStatus(STATUS.searching, true);
          } else if (frame.event === "on_tool_end") {
            turn.setStatus(STATUS.thinking, true);
          } else if (frame.event === "on_chat_model_stream" && data.content) {
            turn.append(data.content);
          } else if (frame.event === "on_chain_end") {
            final = data;
          }
          follow(wasNear, turn);
        });
        var atEnd = nearBottom();
        if (final) finish(turn, final);
        else failed(turn, "The answer was interrupted.", true);
        follow(atEnd, turn);
      } catch (err) {
        if (controller.signal.aborted) {
          turn.done("stopped", "Stopped.");
        } else {
          failed(turn, "Couldn't reach the assistant. Check your connection.", true);
        }
      } finally {
        if (running && running.controller === controller) running = null;
        refresh();
      }
    }

    function failed(turn, message, retry) {
      if (!turn.tokens) turn.body.textContent = "";
      turn.body.append(el("p", { class: "dc-error", text: message }));
      turn.done("error");
      if (retry) turn.addAction("Try again", function () { run(turn); });
    }

    async function httpError(turn, res) {
      var envelope = {};
      try { envelope = await res.json(); } catch (e) { /* not JSON: use the status */ }
      if (res.status !== 429) {
        failed(turn, envelope.error || "Something went wrong (HTTP " + res.status + ").",
          res.status >= 500);
        return;
      }
      var wait = parseInt(res.headers.get("Retry-After") || "", 10);
      wait = isFinite(wait) && wait > 0 ? wait : 10;
      var message = el("p", { class: "dc-error" });
      turn.body.textContent = "";
      turn.body.append(message);
      turn.done("error");
      turn.node.dataset.exit = "HTTP_429";
      var retry = turn.addAction("Try again", function () { run(turn); }, { disabled: true });
      (function tick() {
        message.textContent = wait > 0
          ? "Too many questions right now: retry in " + wait + " s."
          : "You can ask again now.";
        retry.disabled = wait > 0;
        if (wait-- > 0 && turn.node.isConnected) setTimeout(tick, 1000);
      })();
    }

    function finish(turn, data) {
      if (data.session_id) session = data.session_id;
      var qid = String(data.query_id || "q").replace(/[^A-Za-z0-9_-]/g, "");
      if (typeof data.response_html === "string") {
        turn.body.innerHTML = data.response_html;
        turn.body.className = "dc-body dc-md";
      } else {
        turn.body.textContent = data.response || "";
        turn.body.className = "dc-body dc-plain";
      }
      var exit = data.exit_reason || "";
      turn.node.dataset.exit = exit;
      turn.node.dataset.cached = String(!!(data.metadata && data.metadata.cached));
      turn.node.classList.toggle("dc-warn", exit !== "COMPLETED" && !(data.sources || []).length);
      addCodeButtons(turn.body);
      showSources(turn, data.sources || [], qid);
      turn.done("done");
      if (data.retryable) {
        turn.addAction("Try again", function () { run(turn); }, { class: "dc-btn dc-primary" });
      } else if (exit === "MAX_CONTEXT_REACHED") {
        turn.addAction("Start a new conversation", function () {
          newConversation(turn.question);
          input.focus();
        }, { class: "dc-btn dc-primary" });
      }
    }

    function showSources(turn, sources, qid) {
      var byN = {};
      if (sources.length) {
        var list = el("ol", { class: "dc-sources" });
        sources.forEach(function (s) {
          var id = "src-" + qid + "-" + s.n;
          var label = s.title || s.source_file || "Source " + s.n;
          var link = s.page_url && isSafeHref(s.page_url)
            ? el("a", { href: s.page_url, target: "_blank", rel: "noopener noreferrer" }, label)
            : el("span", { class: "dc-src-title" }, label);
          var section = (s.section_title || "").split(" > ").slice(1).join(" › ");
          var item = el("li", { id: id, tabindex: "-1", "data-n": String(s.n) },
            el("span", { class: "dc-n", text: "[" + s.n + "]" }),
            el("div", { class: "dc-src" }, link,
              section ? el("span", { class: "dc-section", text: section }) : null,
              s.source_file ? el("span", { class: "dc-file", text: s.source_file }) : null,
              s.content_preview ? el("details", {},
                el("summary", {}, "Preview"),
                el("p", { class: "dc-preview", text: s.content_preview })) : null));
          byN[s.n] = item;
          list.append(item);
        });
        turn.sources.append(el("h2", { class: "dc-sources-title", text: "Sources" }), list);
      }
      turn.body.querySelectorAll("a.cite").forEach(function (a) {
        var item = byN[a.dataset.n];
        if (!item) return;
        a.href = "#" + item.id;
        a.setAttribute("aria-label", "Source " + a.dataset.n + ": " + item.textContent);
        a.addEventListener("click", function (e) {
          e.preventDefault(); // also inside a shadow root, where #fragments don't resolve
          var details = item.querySelector("details");
          if (details) details.open = true;
          item.scrollIntoView({ block: "nearest" });
          item.focus({ preventScroll: true });
          item.classList.remove("dc-flash");
          void item.offsetWidth; // restart the highlight animation
          item.classList.add("dc-flash");
        });
      });
    }

    function addCodeButtons(body) {
      body.querySelectorAll("pre").forEach(function (pre) {
        var button = el("button", { type: "button", class: "dc-copy",
          "aria-label": "Copy code" }, "Copy");
        button.addEventListener("click", function () {
          copy(pre.innerText.replace(/\n$/, ""), pre).then(function () {
            button.textContent = "Copied";
            setTimeout(function () { button.textContent = "Copy"; }, 1500);
          });
        });
        var box = el("div", { class: "dc-code" });
        pre.replaceWith(box);
        box.append(pre, button);
      });
    }

    function copy(text, pre) {
      if (navigator.clipboard && window.isSecureContext) {
        return navigator.clipboard.writeText(text);
      }
      var range = document.createRange(); // plain-http hosts have no clipboard API
      range.selectNodeContents(pre);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      document.execCommand("copy");
      sel.removeAllRanges();
      return Promise.resolve();
    }

    return {
      root: shell,
      focus: function () { input.focus(); },
      setSelection: setSelection,
      prefill: function (text) {
        input.value = text;
        autosize();
        refresh();
        input.select();
      },
      newConversation: newConversation,
    };
  }

  window.DocentChat = { mount: mount, parseFrame: parseFrame };

  function autoMount() {
    document.querySelectorAll("[data-docent-chat]").forEach(function (node) {
      var chat = mount(node, { api: node.dataset.api || new URL(".", document.baseURI).href });
      chat.focus();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", autoMount);
  else autoMount();
})();
