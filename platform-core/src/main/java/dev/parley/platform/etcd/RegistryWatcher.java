package dev.parley.platform.etcd;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A live view of one registry prefix (the SFUs or TURNs of a region, or the controllers): list once, then
 * watch from the listed revision. When the watch breaks it lists again, so the view heals itself.
 * Entries that fail to parse are skipped (and logged), never fatal.
 */
public final class RegistryWatcher<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryWatcher.class);

    private final Client client;
    private final String prefix;
    private final Class<T> type;
    private final ObjectMapper json;
    private final Map<String, T> entries = new ConcurrentHashMap<>();
    private volatile Watch.Watcher watcher;
    private volatile boolean closed;
    private volatile Runnable onChange = () -> { };
    private final java.util.List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Which keys under the prefix are entries (all of them, unless a narrower view was asked for). */
    private final java.util.function.Predicate<String> keys;

    public RegistryWatcher(Client client, String prefix, Class<T> type, ObjectMapper json) {
        this(client, prefix, k -> true, type, json);
    }

    public RegistryWatcher(Client client, String prefix, java.util.function.Predicate<String> keys, Class<T> type,
                           ObjectMapper json) {
        this.keys = keys;
        this.client = client;
        this.prefix = prefix;
        this.type = type;
        this.json = json;
    }

    public static RegistryWatcher<SfuEntry> sfus(Client c, String region, ObjectMapper json) {
        return new RegistryWatcher<>(c, EtcdKeys.sfuPrefix(region), SfuEntry.class, json);
    }

    /** The SFUs of every region (a meeting's participants may sit on SFUs of several MediaRegions). */
    public static RegistryWatcher<SfuEntry> allSfus(Client c, ObjectMapper json) {
        return new RegistryWatcher<>(c, EtcdKeys.regionsPrefix(), EtcdKeys::isSfuKey, SfuEntry.class, json);
    }

    public static RegistryWatcher<TurnEntry> turns(Client c, String region, ObjectMapper json) {
        return new RegistryWatcher<>(c, EtcdKeys.turnPrefix(region), TurnEntry.class, json);
    }

    public static RegistryWatcher<ControllerEntry> controllers(Client c, ObjectMapper json) {
        return new RegistryWatcher<>(c, EtcdKeys.controllerPrefix(), ControllerEntry.class, json);
    }

    /**
     * Runs {@code listener} after every list and every batch of watch events (on the list or watch thread), so a
     * reader of {@link #entries()} can follow joins and leaves without polling. Set it before {@link #start()}.
     */
    public RegistryWatcher<T> onChange(Runnable listener) {
        this.onChange = listener;
        return this;
    }

    /**
     * One more listener, run like {@link #onChange} after every list and watch batch; may be added after
     * {@link #start()} (it sees the changes from then on). Listeners must be quick: they run on the watch thread.
     */
    public RegistryWatcher<T> addListener(Runnable listener) {
        listeners.add(listener);
        return this;
    }

    public RegistryWatcher<T> start() {
        relistAndWatch();
        return this;
    }

    /** Pod name → entry, as currently known. */
    public Map<String, T> entries() {
        return Map.copyOf(entries);
    }

    public T get(String pod) {
        return entries.get(pod);
    }

    private synchronized void relistAndWatch() {
        if (closed) {
            return;
        }
        try {
            ByteSequence p = EtcdKeys.bytes(prefix);
            GetResponse r = client.getKVClient().get(p, GetOption.builder().isPrefix(true).build())
                    .get(5, TimeUnit.SECONDS);
            Map<String, T> fresh = new java.util.HashMap<>();
            for (KeyValue kv : r.getKvs()) {
                if (!keys.test(kv.getKey().toString(StandardCharsets.UTF_8))) continue;
                T v = parse(kv);
                if (v != null) {
                    fresh.put(EtcdKeys.lastSegment(kv.getKey().toString(StandardCharsets.UTF_8)), v);
                }
            }
            entries.keySet().retainAll(fresh.keySet());
            entries.putAll(fresh);
            changed();
            long rev = r.getHeader().getRevision();
            if (watcher != null) {
                watcher.close();
            }
            watcher = client.getWatchClient().watch(p,
                    WatchOption.builder().isPrefix(true).withRevision(rev + 1).build(),
                    Watch.listener(this::onWatch, this::onWatchError));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("registry list of {} failed: {}", prefix, e.toString());
            retryLater();
        }
    }

    private void onWatch(WatchResponse resp) {
        for (WatchEvent ev : resp.getEvents()) {
            String key = ev.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
            if (!keys.test(key)) continue;
            String pod = EtcdKeys.lastSegment(key);
            if (ev.getEventType() == WatchEvent.EventType.DELETE) {
                entries.remove(pod);
            } else if (ev.getEventType() == WatchEvent.EventType.PUT) {
                T v = parse(ev.getKeyValue());
                if (v != null) {
                    entries.put(pod, v);
                }
            }
        }
        changed();
    }

    private void changed() {
        try {
            onChange.run();
        } catch (RuntimeException e) {
            LOG.warn("registry listener of {} failed: {}", prefix, e.toString());
        }
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                LOG.warn("registry listener of {} failed: {}", prefix, e.toString());
            }
        }
    }

    private void onWatchError(Throwable t) {
        if (!closed) {
            LOG.warn("registry watch of {} broke: {}; relisting", prefix, t.toString());
            retryLater();
        }
    }

    private void retryLater() {
        if (closed) {
            return;
        }
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            relistAndWatch();
        });
    }

    private T parse(KeyValue kv) {
        try {
            return json.readValue(kv.getValue().getBytes(), type);
        } catch (Exception e) {
            LOG.warn("skipping unreadable registry entry {}: {}", kv.getKey().toString(StandardCharsets.UTF_8),
                    e.getMessage());
            return null;
        }
    }

    @Override
    public void close() {
        closed = true;
        if (watcher != null) {
            watcher.close();
        }
    }
}
