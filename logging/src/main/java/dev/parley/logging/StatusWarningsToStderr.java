package dev.parley.logging;

import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.spi.LifeCycle;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusListener;
import ch.qos.logback.core.util.StatusPrinter2;

/**
 * Logback's own warnings and errors (a bad PARLEY_LOG_LEVELS entry, an unknown PARLEY_LOG_FORMAT, a broken
 * logback.xml) go to stderr. Without a status listener logback prints them to stdout as text, which would break the
 * one-JSON-object-per-line promise of stdout; its INFO chatter is dropped. Declared first in each pod's logback.xml;
 * on start it also prints the warnings logback recorded before it was registered.
 */
public class StatusWarningsToStderr extends ContextAwareBase implements StatusListener, LifeCycle {
    private final StatusPrinter2 printer = new StatusPrinter2();
    private boolean started;

    @Override
    public void addStatusEvent(Status status) {
        if (started && status.getEffectiveLevel() >= Status.WARN) {
            StringBuilder sb = new StringBuilder();
            printer.buildStr(sb, "", status);
            System.err.print(sb);
        }
    }

    @Override
    public void start() {
        started = true;
        if (getContext() != null) {
            getContext().getStatusManager().getCopyOfStatusList().forEach(this::addStatusEvent);
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
        return true;
    }
}
