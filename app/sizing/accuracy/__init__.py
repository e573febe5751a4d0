"""How close are the time estimates to published measurements? Each published point, sized through
the public ``size`` API exactly as its source set it up, and the summary the goal is judged on."""
