package dev.parley.turn;

import dev.parley.media.netty.NettyDefaults;
import dev.parley.turn.config.TurnConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Entry point of {@code turn-pod.jar}. Configuration from the environment (docs/configuration.md). SIGTERM drains:
 * new Allocates are refused, the process exits when allocations reach zero or the grace period ends (Kubernetes'
 * terminationGracePeriodSeconds should be at least PARLEY_TURN_DRAIN_GRACE_SECONDS).
 */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        NettyDefaults.apply();
        TurnConfig config = TurnConfig.fromEnv(System.getenv());
        LOG.info("starting TURN pod: {}", config);
        if (System.getenv("PARLEY_TURN_UNAUTH_PER_SECOND") != null) {
            LOG.warn("PARLEY_TURN_UNAUTH_PER_SECOND is no longer read: 401s have no global budget (a flood used it up"
                    + " for everyone); PARLEY_TURN_UNAUTH_PER_SOURCE_PER_SECOND limits each source");
        }
        if (config.internalSecret() == null || config.internalSecret().isBlank()) {
            LOG.warn("PARLEY_INTERNAL_SECRET is not set: GET /state and POST /drain refuse every request (SIGTERM still drains)");
        }
        TurnPod pod = new TurnPod(config, System::currentTimeMillis);
        try {
            pod.start();
        } catch (Exception e) {
            LOG.error("TURN pod failed to start: {}", e.toString());
            pod.close();
            System.exit(1);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                if (pod.awaitStopped(0, TimeUnit.SECONDS)) {
                    return; // drained via POST /drain already
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            pod.drain(config.drainGrace());
            try {
                pod.awaitStopped(config.drainGrace().toSeconds() + 5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            pod.close();
        }, "turn-shutdown"));
        pod.awaitStopped(Long.MAX_VALUE, TimeUnit.DAYS);
        LOG.info("TURN pod stopped");
        System.exit(0);
    }
}
