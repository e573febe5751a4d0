"""Search's tables live in app/search: put them on the metadata so every test truncates them."""

import app.search.models  # noqa: F401
