package dev.parley.recorder.state;

import dev.parley.recorder.manifest.Manifest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Used when no controller URL is configured (local runs, tests): the state is in the log and the manifest. */
public final class LoggingJobStateReporter implements JobStateReporter {
    private static final Logger LOG = LoggerFactory.getLogger(LoggingJobStateReporter.class);

    @Override
    public void report(Manifest m) {
        LOG.info("job {} generation {} state {} ({} segments, {} missing ranges{})", m.jobId, m.generation,
                m.state.wire(), m.segments.size(), m.missingRanges.size(),
                m.failureReason == null ? "" : ", reason: " + m.failureReason);
    }
}
