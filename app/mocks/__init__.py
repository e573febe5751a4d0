"""Mock interviews: a timed run over a few questions with their follow-ups, a warm-up drill,
a debrief and a scorecard; visitors' runs ride in a signed cookie; interviewer mode."""
