package dev.parley.sfu.allocation;

import java.util.Comparator;

/**
 * Budget order among a subscriber's tracks: audio (cheap, and a meeting without audio is broken), screen
 * shares (the content everyone is looking at), then cameras: pinned, then by active-speaker rank, then by
 * tile area (a big tile is what the user is watching), then by id so equal tracks are ordered the same way
 * on every run (otherwise two equal thumbnails could swap layers back and forth).
 */
final class TrackPriority {

    static final Comparator<SubscribedTrack> ORDER = TrackPriority::compare;

    private static int compare(SubscribedTrack a, SubscribedTrack b) {
        int c = Integer.compare(a.kind().ordinal(), b.kind().ordinal());
        if (c != 0) {
            return c;
        }
        if (a.pinned() != b.pinned()) {
            return a.pinned() ? -1 : 1;
        }
        c = Integer.compare(rank(a), rank(b));
        if (c != 0) {
            return c;
        }
        c = Long.compare((long) b.tileWidth() * b.tileHeight(), (long) a.tileWidth() * a.tileHeight());
        return c != 0 ? c : a.trackId().compareTo(b.trackId());
    }

    private static int rank(SubscribedTrack t) {
        return t.speakerRank() < 0 ? Integer.MAX_VALUE : t.speakerRank();
    }

    private TrackPriority() {
    }
}
