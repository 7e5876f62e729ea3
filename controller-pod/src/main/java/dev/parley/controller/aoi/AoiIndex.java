package dev.parley.controller.aoi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the participants of one meeting stand: a uniform grid of square cells over the plane. A radius query looks
 * only at the cells the query circle can touch (one extra ring, so a point on a cell border lost to rounding is
 * never missed) and answers the nearest first, ties by id, at most {@code cap}. Not thread-safe: its owner locks.
 */
public final class AoiIndex {
    private final double cell;
    private final Map<Long, Set<String>> cells = new HashMap<>();
    private final Map<String, double[]> positions = new HashMap<>();

    /** @param cellSize the side of a cell; the meeting's radius makes a query read 5 × 5 cells */
    public AoiIndex(double cellSize) {
        if (!(cellSize > 0) || Double.isInfinite(cellSize)) {
            throw new IllegalArgumentException("cell size must be a positive finite number");
        }
        this.cell = cellSize;
    }

    /** Puts {@code id} at (x, y), moving it if it was elsewhere. */
    public void put(String id, double x, double y) {
        double[] old = positions.get(id);
        long to = key(x, y);
        if (old != null) {
            long from = key(old[0], old[1]);
            if (from != to) {
                leave(from, id);
                cells.computeIfAbsent(to, k -> new HashSet<>()).add(id);
            }
            old[0] = x;
            old[1] = y;
            return;
        }
        positions.put(id, new double[]{x, y});
        cells.computeIfAbsent(to, k -> new HashSet<>()).add(id);
    }

    /** Forgets {@code id}; false when it had no position. */
    public boolean remove(String id) {
        double[] old = positions.remove(id);
        if (old == null) {
            return false;
        }
        leave(key(old[0], old[1]), id);
        return true;
    }

    /** The position of {@code id} as {x, y} (a copy), or null. */
    public double[] position(String id) {
        double[] p = positions.get(id);
        return p == null ? null : p.clone();
    }

    public int size() {
        return positions.size();
    }

    /**
     * The ids within {@code radius} of (x, y) (distance ≤ radius), {@code exclude} left out, nearest first, equal
     * distances by id, at most {@code cap} of them.
     */
    public List<String> near(double x, double y, double radius, int cap, String exclude) {
        List<Hit> hits = new ArrayList<>();
        double r2 = radius * radius;
        long cx0 = cellOf(x - radius) - 1, cx1 = cellOf(x + radius) + 1;
        long cy0 = cellOf(y - radius) - 1, cy1 = cellOf(y + radius) + 1;
        for (long cx = cx0; cx <= cx1; cx++) {
            for (long cy = cy0; cy <= cy1; cy++) {
                Set<String> ids = cells.get(pack(cx, cy));
                if (ids == null) {
                    continue;
                }
                for (String id : ids) {
                    if (id.equals(exclude)) {
                        continue;
                    }
                    double[] p = positions.get(id);
                    double d2 = distance2(p[0], p[1], x, y);
                    if (d2 <= r2) {
                        hits.add(new Hit(id, d2));
                    }
                }
            }
        }
        hits.sort(Hit.ORDER);
        List<String> out = new ArrayList<>(Math.min(cap, hits.size()));
        for (int i = 0; i < hits.size() && i < cap; i++) {
            out.add(hits.get(i).id);
        }
        return out;
    }

    /** Squared distance, computed the one way every caller (and the tests' brute-force model) compares. */
    public static double distance2(double ax, double ay, double bx, double by) {
        double dx = ax - bx, dy = ay - by;
        return dx * dx + dy * dy;
    }

    private void leave(long cellKey, String id) {
        Set<String> ids = cells.get(cellKey);
        if (ids != null && ids.remove(id) && ids.isEmpty()) {
            cells.remove(cellKey);
        }
    }

    private long cellOf(double v) {
        return (long) Math.floor(v / cell);
    }

    private long key(double x, double y) {
        return pack(cellOf(x), cellOf(y));
    }

    /** Cell coordinates stay within ±2^31 for every position inside the documented bounds. */
    private static long pack(long cx, long cy) {
        return (cx << 32) ^ (cy & 0xffffffffL);
    }

    private record Hit(String id, double d2) {
        static final java.util.Comparator<Hit> ORDER =
                java.util.Comparator.comparingDouble(Hit::d2).thenComparing(Hit::id);
    }
}
