"""How does a sizing read on the command line? ``prefill size`` and the plain-text report of a
``SizingResult`` (memory and time), units labelled."""
