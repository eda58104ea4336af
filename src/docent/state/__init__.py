"""State shared by replicas: sessions, rate limits, caches and the last ingestion on Redis.

Used only when `DOCENT_REDIS_URL` is set; otherwise every piece of state stays in the
process's memory (`docent.sessions`, `docent.api.ratelimit`, `docent.cache`).
"""
