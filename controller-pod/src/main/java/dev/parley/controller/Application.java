package dev.parley.controller;

import dev.parley.controller.config.ParleyConfig;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Entry point of the controller pod: configuration from the environment, then Micronaut. */
public final class Application {
    private static final Logger LOG = LoggerFactory.getLogger(Application.class);

    private Application() {
    }

    public static void main(String[] args) {
        start(ParleyConfig.fromEnv(), args);
    }

    /** Starts a controller with an explicit configuration (also used by tests and the benchmark). */
    public static ApplicationContext start(ParleyConfig cfg, String... args) {
        LOG.info("starting controller: {}", cfg);
        if (cfg.localMode()) {
            if (cfg.devTokensEnabled()) {
                LOG.warn("!!! LOCAL MODE: POST /v1/dev/tokens mints bearer tokens for anyone who can reach {} !!!",
                        cfg.bindAddress());
            } else {
                LOG.error("!!! LOCAL MODE requested on non-loopback bind {}: dev tokens REFUSED "
                        + "(set PARLEY_DEV_TOKENS_FORCE=true to override) !!!", cfg.bindAddress());
            }
        }
        return Micronaut.build(args)
                .mainClass(Application.class)
                .properties(cfg.toMicronautProperties())
                .singletons(cfg)
                .banner(false)
                .start();
    }
}
