package dev.parley.operator.registry;

/** Tells a media pod to start draining (phase 1), through its internal API. */
public interface DrainSignal {
    /** @return true when the pod acknowledged */
    boolean signal(String pod, String internalUrl);
}
