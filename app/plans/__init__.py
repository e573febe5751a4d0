"""Study plans: a target date, a focus and a level, spread into daily tasks (questions, the
cards they depend on, drill skills, coding exercises, mocks, review days), ticked by what the
member does, re-planned when a day is missed, and exported to a calendar."""
