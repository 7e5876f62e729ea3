package dev.parley.sfu.allocation;

import java.util.Comparator;

/**
 * Budget order among a subscriber's tracks: audio (cheap, and a meeting without audio is broken), screen
 * shares (the content everyone is looking at), then cameras: pinned, then by active-speaker rank, then by
 * tile area (a big tile is what the user is watching), then by id so equal tracks are ordered the same way
 * on every run (otherwise two equal thumbnails could swap layers back and forth).
 */
final class TrackPriority {

    static final Comparator<SubscribedTrack> ORDER = Comparator
            .comparingInt((SubscribedTrack t) -> t.kind().ordinal())
            .thenComparing(t -> !t.pinned())
            .thenComparingInt(t -> t.speakerRank() < 0 ? Integer.MAX_VALUE : t.speakerRank())
            .thenComparingLong(t -> -(long) t.tileWidth() * t.tileHeight())
            .thenComparing(SubscribedTrack::trackId);

    private TrackPriority() {
    }
}
