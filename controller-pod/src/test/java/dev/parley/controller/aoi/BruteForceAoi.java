package dev.parley.controller.aoi;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The obvious model the grid must agree with: every position compared with every other. */
final class BruteForceAoi {
    final Map<String, double[]> at = new HashMap<>();

    void put(String id, double x, double y) {
        at.put(id, new double[]{x, y});
    }

    void remove(String id) {
        at.remove(id);
    }

    List<String> near(double x, double y, double radius, int cap, String exclude) {
        double r2 = radius * radius;
        return at.entrySet().stream()
                .filter(e -> !e.getKey().equals(exclude))
                .filter(e -> AoiIndex.distance2(e.getValue()[0], e.getValue()[1], x, y) <= r2)
                .sorted(Comparator.<Map.Entry<String, double[]>>comparingDouble(
                        e -> AoiIndex.distance2(e.getValue()[0], e.getValue()[1], x, y)).thenComparing(Map.Entry::getKey))
                .limit(cap)
                .map(Map.Entry::getKey)
                .toList();
    }

    /** What receiver {@code id} should be interested in. */
    List<String> interestOf(String id, AoiSettings s) {
        double[] p = at.get(id);
        return near(p[0], p[1], s.radius(), s.maxParticipants(), id);
    }
}
