"""The rate limits on account actions. Generous for people, tight for scripts.

Failure counters that protect an account are kept per (account, client) with a higher
account-wide ceiling, so one client cannot lock an owner out: the owner's own browser, if it
signed in before, passes the account-wide ceiling, and password reset is never blocked.
"""

from app.ratelimit import Limit

FIFTEEN_MINUTES = 15 * 60
HOUR = 60 * 60
DAY = 24 * HOUR

LOGIN_PER_IP = Limit("login-ip", max_hits=30, window_seconds=FIFTEEN_MINUTES)
LOGIN_FAILURES_PER_CLIENT = Limit("login-fail-client", max_hits=8, window_seconds=FIFTEEN_MINUTES)
LOGIN_FAILURES_PER_ACCOUNT = Limit("login-fail", max_hits=50, window_seconds=FIFTEEN_MINUTES)
SIGNUP_PER_IP = Limit("signup-ip", max_hits=10, window_seconds=HOUR)
# "Someone tried to sign up with your address" mails: at most this many to one address.
SIGNUP_NOTICE_PER_ADDRESS = Limit("signup-notice", max_hits=2, window_seconds=DAY)
RESET_PER_IP = Limit("reset-ip", max_hits=10, window_seconds=HOUR)
RESET_PER_ACCOUNT = Limit("reset-account", max_hits=3, window_seconds=HOUR)
VERIFY_PER_ACCOUNT = Limit("verify-account", max_hits=3, window_seconds=HOUR)
VERIFY_PER_ADDRESS = Limit("verify-address", max_hits=5, window_seconds=DAY)
# Wrong current passwords on /account (password, e-mail, deletion).
PASSWORD_CHECK_PER_CLIENT = Limit("pw-check-client", max_hits=5, window_seconds=FIFTEEN_MINUTES)
PASSWORD_CHECK_PER_ACCOUNT = Limit("pw-check", max_hits=20, window_seconds=FIFTEEN_MINUTES)
# Changes of the account's own e-mail address, counted whether or not another account has the
# new address, before that is looked up: five an hour leaves room for typos and changing back,
# ten a day bounds what /account/email can tell about which addresses have accounts, and how
# many confirmation mails (each opening with the member's display name) one account can send.
EMAIL_CHANGES_PER_HOUR = Limit("email-change", max_hits=5, window_seconds=HOUR)
EMAIL_CHANGES_PER_DAY = Limit("email-change-day", max_hits=10, window_seconds=DAY)
