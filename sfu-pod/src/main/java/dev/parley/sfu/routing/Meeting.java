package dev.parley.sfu.routing;

import dev.parley.sfu.grant.GrantBook;

import java.util.LinkedHashMap;
import java.util.Map;

/** One meeting on this SFU: its participants and its epoch-fenced grants. Mutated on the media thread. */
public final class Meeting {
    final String id;
    final GrantBook grants = new GrantBook();
    final Map<String, Participant> participants = new LinkedHashMap<>();

    Meeting(String id) { this.id = id; }

    public String id() { return id; }
    public GrantBook grants() { return grants; }
}
