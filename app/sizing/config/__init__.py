"""How is a config.json read safely? Typed key look-ups and defaults, size bounds, the families
and features the core refuses, the stated context limit, display names."""
