package dev.parley.controller.media;

import dev.parley.platform.grant.Grant;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** One meeting's grants for one SFU, about to be sent (in a push or a renewal batch). */
record Outgoing(UUID meetingId, GrantLedger.MeetingGrants g, List<Grant> grants) {
    /** Grants per batch request: keeps a batch well under the SFU's 256 KiB body limit (~170 bytes a grant). */
    static final int MAX_BATCH_GRANTS = 1000;

    /** Splits into batches of at most {@link #MAX_BATCH_GRANTS} grants, never splitting one meeting. */
    static List<List<Outgoing>> chunks(List<Outgoing> all) {
        List<List<Outgoing>> out = new ArrayList<>();
        List<Outgoing> cur = new ArrayList<>();
        int n = 0;
        for (Outgoing o : all) {
            if (!cur.isEmpty() && n + o.grants().size() > MAX_BATCH_GRANTS) {
                out.add(cur);
                cur = new ArrayList<>();
                n = 0;
            }
            cur.add(o);
            n += o.grants().size();
        }
        if (!cur.isEmpty()) {
            out.add(cur);
        }
        return out;
    }
}
