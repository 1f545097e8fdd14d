"""Turns and time: the clock, cron expressions, the scheduler that wakes the
turn runner at deadlines, and the turn runner that resolves a turn."""
