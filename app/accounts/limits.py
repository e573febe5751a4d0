"""The rate limits on account actions. Generous for people, tight for scripts."""

from app.ratelimit import Limit

LOGIN_PER_IP = Limit("login-ip", max_hits=30, window_seconds=15 * 60)
LOGIN_FAILURES_PER_ACCOUNT = Limit("login-fail", max_hits=8, window_seconds=15 * 60)
SIGNUP_PER_IP = Limit("signup-ip", max_hits=10, window_seconds=60 * 60)
RESET_PER_IP = Limit("reset-ip", max_hits=10, window_seconds=60 * 60)
RESET_PER_ACCOUNT = Limit("reset-account", max_hits=3, window_seconds=60 * 60)
