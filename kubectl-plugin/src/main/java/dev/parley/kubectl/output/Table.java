package dev.parley.kubectl.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** kubectl-style column output: upper-case headers, columns padded to the widest cell, three spaces apart. */
public final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(List<String> headers) {
        this.headers = headers;
    }

    public void add(List<String> row) {
        rows.add(row);
    }

    public void print(PrintWriter out) {
        if (rows.isEmpty()) {
            out.println("No resources found.");
            return;
        }
        int[] w = new int[headers.size()];
        for (int i = 0; i < w.length; i++) {
            w[i] = headers.get(i).length();
            for (List<String> r : rows) {
                w[i] = Math.max(w[i], r.get(i).length());
            }
        }
        line(out, headers, w);
        rows.forEach(r -> line(out, r, w));
    }

    private static void line(PrintWriter out, List<String> cells, int[] w) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            b.append(cells.get(i));
            if (i < cells.size() - 1) {
                b.append(" ".repeat(w[i] - cells.get(i).length() + 3));
            }
        }
        out.println(b.toString().stripTrailing());
    }
}
