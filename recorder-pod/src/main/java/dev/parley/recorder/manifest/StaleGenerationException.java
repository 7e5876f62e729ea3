package dev.parley.recorder.manifest;

/** This process's generation is no longer the job's current one: it must stop writing anything. */
public final class StaleGenerationException extends Exception {
    private static final long serialVersionUID = 1L;

    public StaleGenerationException(String message) {
        super(message);
    }
}
