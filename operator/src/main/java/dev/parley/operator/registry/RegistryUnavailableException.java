package dev.parley.operator.registry;

/** etcd could not be read or written; the reconciler keeps the pool as it is and retries. */
public class RegistryUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RegistryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
