package dev.parley.sfu.quality;

/** The connection-quality indicator clients show next to a participant. Ordered best to worst. */
public enum ConnectionQuality { EXCELLENT, GOOD, POOR, LOST }
