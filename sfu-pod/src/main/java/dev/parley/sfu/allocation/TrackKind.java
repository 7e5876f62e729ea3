package dev.parley.sfu.allocation;

/** What a subscribed track carries; also the first key of the budget order (audio, then screen, then camera). */
public enum TrackKind { AUDIO, SCREEN, CAMERA }
