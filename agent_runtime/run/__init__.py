"""What a run leaves behind and measures as it goes: the event log, say/do coherence,
responsiveness."""
