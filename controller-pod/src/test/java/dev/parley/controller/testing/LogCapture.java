package dev.parley.controller.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Everything logged in this JVM (the controllers under test run in it) while open: for tests that show a
 * refusal is quiet (no ERROR line, no stack trace).
 */
public final class LogCapture implements AutoCloseable {
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    public LogCapture() {
        appender.setContext(root.getLoggerContext());
        appender.start();
        root.addAppender(appender);
    }

    /** The ERROR events so far, as "logger: message" lines. */
    public List<String> errors() {
        synchronized (appender) { // AppenderBase appends under the appender's lock
            return appender.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                    .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).toList();
        }
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
