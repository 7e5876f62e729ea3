package dev.parley.recorder;

import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.logging.JobLogContext;
import dev.parley.recorder.media.LoopbackTrackSources;
import dev.parley.recorder.media.TrackSourceFactory;
import dev.parley.recorder.state.HttpJobStateReporter;
import dev.parley.recorder.state.JobStateReporter;
import dev.parley.recorder.state.LoggingJobStateReporter;
import dev.parley.recorder.sfu.ControllerSubscribeBroker;
import dev.parley.recorder.sfu.SfuTrackSources;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java -jar recorder-pod.jar}: runs the generation given by the environment, then exits. */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);
    private static final long HEARTBEAT_MS = 5000;

    private Main() {
    }

    private static InetAddress mediaAddress(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("PARLEY_RECORDER_MEDIA_ADDRESS: unknown host " + host, e);
        }
    }

    private static void heartbeat(RecordingRun run, HttpJobStateReporter http) {
        try {
            while (true) {
                Thread.sleep(HEARTBEAT_MS);
                var m = run.currentManifest();
                if (m != null && !m.state.terminal()) {
                    http.report(m);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) {
        JobLogContext.install(System.getenv()); // before the first line: every line names the job
        RecorderConfig cfg;
        try {
            cfg = RecorderConfig.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            LOG.error("bad configuration: {}", e.getMessage());
            System.exit(2);
            return;
        }
        TrackSourceFactory sources = switch (cfg.source()) {
            case "rtp-loopback" -> new LoopbackTrackSources(cfg.rtpTracks());
            case "sfu" -> {
                if (cfg.controllerInternalUrl() == null || cfg.controllerInternalUrl().isBlank()) {
                    LOG.error("PARLEY_RECORDER_SOURCE=sfu needs PARLEY_CONTROLLER_INTERNAL_URL (the controller grants"
                            + " the subscription)");
                    System.exit(2);
                    yield null;
                }
                yield new SfuTrackSources(new ControllerSubscribeBroker(URI.create(cfg.controllerInternalUrl()),
                        cfg.internalSecret(), cfg.jobId(), cfg.generation()), mediaAddress(cfg.mediaAddress()),
                        cfg.sfuSlots(), cfg.segmentSeconds());
            }
            default -> {
                LOG.error("PARLEY_RECORDER_SOURCE must be rtp-loopback or sfu, got {}", cfg.source());
                System.exit(2);
                yield null;
            }
        };
        HttpJobStateReporter http = cfg.controllerInternalUrl() == null || cfg.controllerInternalUrl().isBlank()
                ? null : new HttpJobStateReporter(URI.create(cfg.controllerInternalUrl()), cfg.internalSecret(),
                        cfg.objectKeys());
        LoggingJobStateReporter log = new LoggingJobStateReporter();
        JobStateReporter reporter = m -> {
            log.report(m);
            if (http != null) {
                http.report(m);
            }
        };
        RecordingRun run = new RecordingRun(cfg, sources, reporter);
        if (http != null) {
            // the controller's answer to a report carries stop_requested: a stop reaches us within one segment
            http.onStopRequested(() -> run.requestStop("stop requested by the controller"));
            // ...and whether our SFU drains: re-subscribe (make-before-break) while it still forwards
            http.onResubscribe(sources::resubscribe);
            // a heartbeat report, so the answer reaches us even while no segment closes (e.g. grant revoked)
            Thread.ofPlatform().daemon().name("state-heartbeat").start(() -> heartbeat(run, http));
        }
        Thread hook = new Thread(() -> {
            run.requestStop("SIGTERM");
            try {
                run.awaitFinished();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (http != null) {
                http.flush(5000);
            }
        }, "shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int code = run.run();
        if (http != null) {
            http.flush(5000);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            return; // already shutting down (signal): the hook finishes, the JVM exits
        }
        System.exit(code);
    }
}
