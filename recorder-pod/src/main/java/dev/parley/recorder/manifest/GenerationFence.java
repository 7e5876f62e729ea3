package dev.parley.recorder.manifest;

/** Checked before every manifest write: is this generation still the job's runner? (etcd in production) */
@FunctionalInterface
public interface GenerationFence {
    void verifyCurrent() throws StaleGenerationException;
}
