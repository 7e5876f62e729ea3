package dev.parley.sfu.routing;

import dev.parley.sfu.grant.GrantBook;
import dev.parley.sfu.speaker.ActiveSpeakerDetector;

import java.util.LinkedHashMap;
import java.util.Map;

/** One meeting on this SFU: its participants and its epoch-fenced grants. Mutated on the media thread. */
public final class Meeting {
    final String id;
    final GrantBook grants = new GrantBook();
    final Map<String, Participant> participants = new LinkedHashMap<>();
    /** Dominant/active speakers from the audio-level extension; evaluated on the media timer. */
    final ActiveSpeakerDetector speakers = new ActiveSpeakerDetector(3);
    /** Which simulcast layers publishers should send (nobody needs the others). */
    final MeetingDynacast dynacast = new MeetingDynacast(this);
    /** Which speakers each receiver's audio slots carry (the N loudest plus pins). */
    final AudioTopN audio = new AudioTopN(this);
    /** Owner controller's events URL (the latest one a transport request carried). */
    String eventsUrl;

    Meeting(String id) { this.id = id; }

    public String id() { return id; }
    public GrantBook grants() { return grants; }
}
