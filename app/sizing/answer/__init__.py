"""What does a deployment come to, and what would change it? ``size`` turns a ``ModelSpec`` and
a ``SizingRequest`` into a ``SizingResult``; ``remedies`` ranks the what-ifs, each sized alike."""
