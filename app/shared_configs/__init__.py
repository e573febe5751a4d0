"""Pasted configs kept behind a short link (service.py); routes live with the API and the
calculator pages."""
