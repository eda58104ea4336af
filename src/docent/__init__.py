"""docent: a documentation assistant."""
