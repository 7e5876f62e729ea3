package dev.parley.controller.interest;

import dev.parley.controller.aoi.AoiSettings;
import dev.parley.controller.aoi.InterestSets;
import dev.parley.controller.aoi.Position;
import dev.parley.controller.aoi.PositionGate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** One owned meeting's area-of-interest state: its interest sets and each participant's rate gate. Callers lock it. */
final class MeetingInterest {
    final InterestSets sets;
    final Map<String, PositionGate> gates = new HashMap<>();
    /** Grows with every interest message of the meeting: clients keep the newest (volatile messages may reorder). */
    long sequence;

    MeetingInterest(AoiSettings settings) {
        this.sets = new InterestSets(settings);
    }

    PositionGate gate(String participant, long intervalNanos) {
        return gates.computeIfAbsent(participant, k -> new PositionGate(intervalNanos));
    }

    Map<String, List<String>> move(String participant, Position p) {
        return sets.move(participant, p);
    }

    Map<String, List<String>> remove(String participant) {
        gates.remove(participant);
        return sets.remove(participant);
    }
}
