"""The web chat: a page at /, an embeddable widget at /widget.js and a demo at /demo."""

from docent.web.routes import router

__all__ = ["router"]
