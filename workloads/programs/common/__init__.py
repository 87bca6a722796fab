"""Input generators shared by the suite's programs (seeded, never downloaded)."""
