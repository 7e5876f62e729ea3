package dev.parley.recorder.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The job's fields on the lines of a thread that never set them, from a private logback context. */
class JobLogContextTest {
    @Test
    void aThreadsFirstLineAlreadyCarriesTheJob() throws Exception {
        LoggerContext context = new LoggerContext();
        ListAppender<ILoggingEvent> events = new ListAppender<>() {
            @Override
            protected void append(ILoggingEvent e) {
                e.prepareForDeferredProcessing(); // the MDC as it is on the logging thread, now
                super.append(e);
            }
        };
        context.setMDCAdapter(MDC.getMDCAdapter()); // the adapter slf4j's MDC writes to
        events.setContext(context);
        events.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(events);
        JobLogContext filter = new JobLogContext(JobLogContext.fieldsFrom(Map.of("PARLEY_MEETING_ID", "m-1",
                "PARLEY_RECORDING_JOB_ID", "job-7", "PARLEY_RECORDING_GENERATION", "3")));
        filter.setContext(context);
        filter.start();
        context.addTurboFilter(filter);

        Thread t = Thread.ofPlatform().start(() -> context.getLogger("dev.parley.recorder.x").info("segment uploaded"));
        t.join();

        assertThat(events.list).singleElement().satisfies(e -> assertThat(e.getMDCPropertyMap())
                .containsEntry("meeting_id", "m-1").containsEntry("recording_job_id", "job-7").containsEntry("generation", "3"));
        context.stop();
        MDC.clear();
    }

    @Test
    void valuesOutsideTheirRuleAreLeftOut() {
        assertThat(JobLogContext.fieldsFrom(Map.of("PARLEY_RECORDING_JOB_ID", "job\"}\n{x", "PARLEY_RECORDING_GENERATION", "2")))
                .containsExactly(Map.entry("generation", "2"));
        assertThat(JobLogContext.fieldsFrom(Map.of())).isEmpty();
    }
}
