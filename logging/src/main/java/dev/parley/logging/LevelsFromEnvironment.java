package dev.parley.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggerContextListener;
import ch.qos.logback.core.spi.ConfigurationEvent;
import ch.qos.logback.core.spi.ConfigurationEventListener;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.spi.LifeCycle;

import java.util.Map;

/**
 * Applies {@code PARLEY_LOG_LEVELS} (system property first, then environment) on top of logback.xml. Declared as
 * a {@code <contextListener>} in each pod's logback.xml. Logback builds a context listener before the file's
 * {@code <logger>} lines, so the levels are set when the configuration has ended (a configuration event) and win
 * over the file's own.
 */
public class LevelsFromEnvironment extends ContextAwareBase
        implements LoggerContextListener, LifeCycle, ConfigurationEventListener {
    public static final String VARIABLE = "PARLEY_LOG_LEVELS";
    private boolean started;
    private boolean applied;

    static String spec() {
        String v = System.getProperty(VARIABLE);
        return v != null ? v : System.getenv(VARIABLE);
    }

    /** Sets the levels on {@code context}; returns what was applied and what was refused. */
    public static PackageLevels apply(LoggerContext context, String spec) {
        PackageLevels parsed = PackageLevels.parse(spec);
        for (Map.Entry<String, Level> e : parsed.levels().entrySet()) {
            context.getLogger(e.getKey()).setLevel(e.getValue());
        }
        return parsed;
    }

    @Override
    public void start() {
        getContext().addConfigurationEventListener(this);
        started = true;
    }

    @Override
    public void listen(ConfigurationEvent event) {
        if (!started || applied || (event.getEventType() != ConfigurationEvent.EventType.CONFIGURATION_ENDED_SUCCESSFULLY
                && event.getEventType() != ConfigurationEvent.EventType.CONFIGURATION_ENDED_WITH_XML_PARSING_ERRORS)) {
            return;
        }
        applied = true; // once per configuration: a reconfiguration builds a new listener
        PackageLevels result = apply((LoggerContext) getContext(), spec());
        for (String bad : result.rejected()) {
            addWarn(VARIABLE + ": ignoring '" + bad + "' (want logger=trace|debug|info|warn|error|off)");
        }
    }

    @Override
    public void stop() {
        started = false;
    }

    @Override
    public boolean isStarted() {
        return started;
    }

    @Override
    public boolean isResetResistant() {
        return false;
    }

    @Override
    public void onStart(LoggerContext context) {
    }

    @Override
    public void onReset(LoggerContext context) {
    }

    @Override
    public void onStop(LoggerContext context) {
    }

    @Override
    public void onLevelChange(ch.qos.logback.classic.Logger logger, Level level) {
    }
}
