package dev.parley.e2e.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The load client: meetings of {@link LoadParticipant}s, their shared 10 ms media clock, and the tag → participant
 * map receivers use to say whose packets they got.
 */
final class LoadFleet implements AutoCloseable {
    /** One load meeting: its host (who issues commands) and everyone in it, the host included. */
    static final class Meeting {
        final String id;
        final LoadParticipant host;
        final List<LoadParticipant> members = new CopyOnWriteArrayList<>();

        Meeting(String id, LoadParticipant host) {
            this.id = id;
            this.host = host;
        }
    }

    private final Api api;
    private final ChaosPlatform platform;
    final List<Meeting> meetings = new CopyOnWriteArrayList<>();
    final Map<Integer, LoadParticipant> byTag = new ConcurrentHashMap<>();
    private final AtomicInteger tags = new AtomicInteger();
    private final Thread clock;
    private volatile boolean closed;

    LoadFleet(Api api, ChaosPlatform platform) {
        this.api = api;
        this.platform = platform;
        clock = Thread.ofPlatform().daemon().name("load-media-clock").start(this::run);
    }

    private void run() {
        long tick = 0;
        long next = System.nanoTime();
        while (!closed) {
            for (Meeting m : meetings) {
                for (LoadParticipant p : m.members) p.tick(tick);
            }
            tick++;
            next += 10_000_000L;
            long wait = next - System.nanoTime();
            if (wait > 0) Api.sleep(wait / 1_000_000L);
            else if (wait < -200_000_000L) next = System.nanoTime(); // fell far behind (loaded machine): skip
        }
    }

    /** A meeting with {@code size} participants (the first creates it and is its host); {@code slots} per subscriber. */
    Meeting addMeeting(String label, int size, int slots) throws Exception {
        LoadParticipant host = participant(label + "-host", slots);
        host.start(null);
        Meeting m = new Meeting(host.meetingId, host);
        m.members.add(host);
        meetings.add(m);
        List<Thread> joins = new ArrayList<>();
        List<Exception> failed = new CopyOnWriteArrayList<>();
        for (int i = 1; i < size; i++) {
            String name = label + "-p" + i;
            joins.add(Thread.ofVirtual().start(() -> {
                try {
                    join(m, name, slots);
                } catch (Exception e) {
                    failed.add(e);
                }
            }));
        }
        for (Thread t : joins) t.join();
        if (!failed.isEmpty()) throw failed.get(0);
        return m;
    }

    LoadParticipant join(Meeting m, String name, int slots) throws Exception {
        LoadParticipant p = participant(name, slots);
        p.start(m.id);
        m.members.add(p);
        return p;
    }

    private LoadParticipant participant(String name, int slots) {
        int tag = tags.incrementAndGet();
        LoadParticipant p = new LoadParticipant(name, tag, api, platform, slots);
        byTag.put(tag, p);
        return p;
    }

    /** Stops driving {@code m}: its participants leave and close their links (the meeting is ended by the caller). */
    void drop(Meeting m) {
        meetings.remove(m);
        for (LoadParticipant p : m.members) {
            byTag.remove(p.tag);
            p.close();
        }
    }

    Meeting meetingOf(LoadParticipant p) {
        for (Meeting m : meetings) if (m.members.contains(p)) return m;
        return null;
    }

    List<LoadParticipant> all() {
        List<LoadParticipant> out = new ArrayList<>();
        for (Meeting m : meetings) out.addAll(m.members);
        return out;
    }

    @Override
    public void close() {
        closed = true;
        for (LoadParticipant p : all()) p.close();
    }
}
