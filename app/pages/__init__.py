"""Pages that compose several features: the question, concept and home pages, the drills, the
calculator and its compare view, and the assembly that puts every router on the app. Above the
features and the HTTP plumbing (app/web), beside the JSON API (app/api)."""
