"""``tokenpilot audit``: where the tokens of an agent run or a day of traffic go."""
