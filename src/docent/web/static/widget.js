/* docent widget: served after chat.js as one file at /widget.js.
 *
 *   <script src="http://host:8000/widget.js" data-api="http://host:8000" defer></script>
 *
 * Adds an "Ask the docs" button that opens the chat in a panel inside a shadow root, so
 * the host page's CSS and ours never meet. Selecting text on the page offers
 * "Ask about this", which sends the selection as `selected_text`. Closing the panel clears
 * the conversation.
 * data-api defaults to the origin the script came from.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.DocentChat || window.__docentWidget) return;
  window.__docentWidget = true;
  var api = (script.dataset.api || new URL(script.src, location.href).origin).replace(/\/+$/, "");

  function start() {
    var host = document.createElement("div");
    host.id = "docent-widget";
    var shadow = host.attachShadow({ mode: "open" });
    var wrap = document.createElement("div");
    wrap.className = "dcw";
    wrap.hidden = true; // until our stylesheet has loaded: no flash of unstyled buttons
    var css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = api + "/static/chat.css";
    css.onload = css.onerror = function () { wrap.hidden = false; };
    shadow.append(css, wrap);

    var launcher = button("dcw-launcher", "Ask the docs");
    launcher.setAttribute("aria-expanded", "false");
    launcher.setAttribute("aria-controls", "dcw-panel");
    var panel = document.createElement("div");
    panel.className = "dcw-panel";
    panel.id = "dcw-panel";
    panel.hidden = true;
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", "Ask the docs");
    var askThis = button("dcw-ask", "Ask about this");
    askThis.hidden = true;
    wrap.append(panel, launcher, askThis);

    var chat = window.DocentChat.mount(panel, { api: api, onClose: close });
    var pending = "";

    function button(cls, label) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = cls;
      b.textContent = label;
      return b;
    }

    function open() {
      panel.hidden = false;
      wrap.classList.add("dcw-open");
      launcher.setAttribute("aria-expanded", "true");
      chat.focus();
    }

    function close() {
      // Closing ends the conversation: no history is kept anywhere, not even in page memory
      // (a running answer stops, the session id is dropped, the log is emptied).
      chat.newConversation();
      panel.hidden = true;
      wrap.classList.remove("dcw-open");
      launcher.setAttribute("aria-expanded", "false");
      launcher.focus();
    }

    launcher.addEventListener("click", function () { panel.hidden ? open() : close(); });
    panel.addEventListener("keydown", function (e) {
      if (e.key === "Escape") close();
    });

    /* "Ask about this" for a selection on the host page */
    function ours(node) {
      return node === host || host.contains(node) || shadow.contains(node);
    }

    function onSelection() {
      var sel = document.getSelection();
      var text = sel && !sel.isCollapsed && sel.rangeCount ? sel.toString().trim() : "";
      if (!text || ours(sel.anchorNode)) {
        askThis.hidden = true;
        return;
      }
      pending = text;
      var rect = sel.getRangeAt(0).getBoundingClientRect();
      askThis.hidden = false;
      var below = rect.bottom + 8 + askThis.offsetHeight < window.innerHeight;
      var top = below ? rect.bottom + 8 : Math.max(8, rect.top - askThis.offsetHeight - 8);
      var left = Math.min(Math.max(8, rect.left), window.innerWidth - askThis.offsetWidth - 8);
      askThis.style.top = top + "px";
      askThis.style.left = left + "px";
    }

    var timer = 0;
    document.addEventListener("selectionchange", function () {
      clearTimeout(timer);
      timer = setTimeout(onSelection, 150);
    });
    window.addEventListener("scroll", function () { askThis.hidden = true; }, { passive: true });
    askThis.addEventListener("mousedown", function (e) { e.preventDefault(); }); // keep it
    askThis.addEventListener("click", function () {
      askThis.hidden = true;
      chat.setSelection(pending);
      open();
      chat.prefill("Explain this");
    });

    document.body.append(host);
  }

  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start);
})();
