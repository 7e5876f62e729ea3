package dev.parley.e2e.chaos;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * No media forwarded without a live grant: packets from P that reached S in a window must have left the SFU while
 * both P's and S's grants were live somewhere. A window whose span, widened by the path's largest delay
 * ({@code slackNanos}: proxy delay + scheduling), is covered by polls that all saw one of the two grants expired
 * (or gone) is a violation. Windows are decided once a poll after their end exists. Browser-counted windows get
 * {@link #COARSE_EXTRA_NANOS} more slack: in the second full run one such window 784 ms after the publisher's grant
 * had expired everywhere counted 13 packets while the load client's exact counters never did (see README).
 * A load-client window also reaches back to the earliest send time stamped in its packets: a packet can have left the
 * SFU at any moment between its sending and its receipt, so one sent while the grants were live and received late
 * (a starved receiver: the full run of 2026-12-07 at load average 40 counted 37 packets by receive time 1.4 s into an
 * expiry) proves nothing, while one sent after the grant had expired everywhere does.
 */
final class MediaOnlyWithLiveGrant extends Invariant {
    private final GrantTimeline timeline;
    private final LongSupplier slackNanos;
    private final List<MediaWindow> pending = new ArrayList<>();

    static final long COARSE_EXTRA_NANOS = 1_000_000_000L;

    MediaOnlyWithLiveGrant(GrantTimeline timeline, LongSupplier slackNanos) {
        super("no media without a live grant");
        this.timeline = timeline;
        this.slackNanos = slackNanos;
    }

    @Override
    synchronized void window(MediaWindow w) {
        if (w.packets() > 0) pending.add(w);
    }

    @Override
    synchronized void observe(Observation o) {
        long slack = slackNanos.getAsLong();
        for (Iterator<MediaWindow> it = pending.iterator(); it.hasNext(); ) {
            MediaWindow w = it.next();
            long from = Math.min(w.fromNanos() - slack - (w.coarse() ? COARSE_EXTRA_NANOS : 0), w.earliestSentNanos());
            GrantTimeline.Verdict pub = timeline.expiredThroughout(w.meetingId(), w.pub(), from, w.toNanos());
            GrantTimeline.Verdict sub = timeline.expiredThroughout(w.meetingId(), w.sub(), from, w.toNanos());
            if (pub == GrantTimeline.Verdict.UNDECIDED || sub == GrantTimeline.Verdict.UNDECIDED) {
                if (o.nanos() - w.toNanos() < 10_000_000_000L) continue;
            }
            it.remove();
            check(pub != GrantTimeline.Verdict.EXPIRED_THROUGHOUT && sub != GrantTimeline.Verdict.EXPIRED_THROUGHOUT,
                () -> w.packets() + " packets " + w.pub() + " -> " + w.sub() + " in meeting " + w.meetingId() + " while the "
                    + (pub == GrantTimeline.Verdict.EXPIRED_THROUGHOUT ? "publisher's" : "subscriber's")
                    + " grant was expired at every SFU over " + (w.toNanos() - from) / 1_000_000 + " ms");
        }
    }
}
