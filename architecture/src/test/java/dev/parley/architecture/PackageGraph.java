package dev.parley.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The dependency graph between a module's first-level packages (the same slices as
 * {@code slices().matching(root.(*)..)}), and which of them sit on a cycle: the members of its strongly connected
 * components with more than one package (Tarjan). A count of elementary cycles would not do: one tangle of 16
 * packages has thousands of them.
 */
final class PackageGraph {

    private final Map<String, Set<String>> edges = new TreeMap<>();

    private PackageGraph() {
    }

    static PackageGraph of(JavaClasses classes, String rootPackage) {
        PackageGraph graph = new PackageGraph();
        for (JavaClass c : classes) {
            String from = sliceOf(c.getPackageName(), rootPackage);
            if (from == null) {
                continue;
            }
            graph.edges.computeIfAbsent(from, k -> new TreeSet<>());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = sliceOf(d.getTargetClass().getPackageName(), rootPackage);
                if (to != null && !to.equals(from)) {
                    graph.edges.get(from).add(to);
                }
            }
        }
        return graph;
    }

    /** The first package name below root, or null for the root itself and other packages. */
    static String sliceOf(String packageName, String rootPackage) {
        if (!packageName.startsWith(rootPackage + ".")) {
            return null;
        }
        String rest = packageName.substring(rootPackage.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    Set<String> packagesInCycles() {
        return new Tarjan().run();
    }

    private final class Tarjan {
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new HashSet<>();
        private final Set<String> inCycles = new TreeSet<>();
        private int next;

        Set<String> run() {
            for (String v : edges.keySet()) {
                if (!index.containsKey(v)) {
                    visit(v);
                }
            }
            return inCycles;
        }

        private void visit(String v) {
            index.put(v, next);
            low.put(v, next);
            next++;
            stack.push(v);
            onStack.add(v);
            for (String w : edges.getOrDefault(v, Set.of())) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (onStack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                Set<String> component = new TreeSet<>();
                String w;
                do {
                    w = stack.pop();
                    onStack.remove(w);
                    component.add(w);
                } while (!w.equals(v));
                if (component.size() > 1) {
                    inCycles.addAll(component);
                }
            }
        }
    }
}
