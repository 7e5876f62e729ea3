package dev.parley.controller.logging;

import io.micronaut.core.propagation.ThreadPropagatedContextElement;
import org.slf4j.MDC;

/**
 * A request's MDC fields as Micronaut propagated context. Entering it on a thread puts the request's keys and
 * remembers what those keys held; leaving it puts the old values back. Micronaut's own {@code MdcPropagationContext}
 * copies the thread's whole MDC map twice per thread hop, which was ~4 % of the controller's CPU per join
 * (bench/controller/README.md); this touches only {@link RequestMdc#KEYS}. Keys a request adds on its way
 * ({@code controller_epoch}, the joined {@code participant_id}) are among them, so they leave with the request too.
 */
record RequestMdcContext(String pod, String meetingId, String participantId)
        implements ThreadPropagatedContextElement<String[]> {

    @Override
    public String[] updateThreadContext() {
        String[] previous = new String[RequestMdc.KEYS.size()];
        for (int i = 0; i < previous.length; i++) {
            previous[i] = MDC.get(RequestMdc.KEYS.get(i));
        }
        set(RequestMdc.POD, pod);
        set(RequestMdc.MEETING_ID, meetingId);
        set(RequestMdc.PARTICIPANT_ID, participantId);
        set(RequestMdc.CONTROLLER_EPOCH, null);
        return previous;
    }

    @Override
    public void restoreThreadContext(String[] previous) {
        for (int i = 0; i < previous.length; i++) {
            set(RequestMdc.KEYS.get(i), previous[i]);
        }
    }

    private static void set(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
