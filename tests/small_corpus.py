"""A three-page docs corpus small enough to ingest in a test, with facts to ask about."""

from __future__ import annotations

DOCS = {
    "limits.md": "# Limits\n\n## Changing the tool-call limit\n\nSet `DOCENT_MAX_TOOL_CALLS` "
                 "to change the tool-call limit. The default is 3 searches per run.\n\n"
                 "## Changing the turn limit\n\nSet `DOCENT_MAX_TURNS` to change the turn "
                 "limit. The default is 6 model calls per run.\n",
    "sessions.md": "# Sessions\n\n## Session expiry\n\nA session expires after 30 minutes "
                   "without activity. Set `DOCENT_SESSION_TTL_SECONDS` to change it.\n",
    "streaming.md": "# Streaming\n\n## Keep-alive pings\n\nThe stream sends a `: ping` "
                    "comment every 15 seconds. Set `DOCENT_SSE_PING_SECONDS` to change it.\n",
}
