package dev.parley.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No module has a package cycle: inside each module the packages under its root form a directed acyclic graph, so
 * a package can be understood, moved or split out with what it imports and nothing that imports it back. Reads each
 * module's compiled main classes ({@code target/classes}); the reactor builds them before this module.
 *
 * <p>A module not yet free of cycles is listed in {@link #KNOWN_CYCLES} with the packages that take part in a
 * cycle today. For it the test fails when a package joins a cycle, and also when one leaves (then shorten the list,
 * or drop the module once it is empty), so the list only ever moves towards zero. Every other module must pass
 * ArchUnit's {@code slices().matching(root.(*)..).should().beFreeOfCycles()}.
 */
class PackageCyclesTest {

    private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

    /** Module → packages (first level below its root) that are part of a package cycle today. */
    private static final Map<String, Set<String>> KNOWN_CYCLES = Map.of();

    static Stream<Arguments> modules() {
        return Stream.of(
                Arguments.of("media-core", "dev.parley.media"),
                Arguments.of("platform-core", "dev.parley.platform"),
                Arguments.of("test-support", "dev.parley.testsupport"),
                Arguments.of("controller-pod", "dev.parley.controller"),
                Arguments.of("sfu-pod", "dev.parley.sfu"),
                Arguments.of("turn-pod", "dev.parley.turn"),
                Arguments.of("recorder-pod", "dev.parley.recorder"),
                Arguments.of("operator-api", "dev.parley.operator"),
                Arguments.of("operator", "dev.parley.operator"),
                Arguments.of("kubectl-plugin", "dev.parley.kubectl"),
                Arguments.of("bench", "dev.parley.bench"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void packagesOfAModuleFormNoCycle(String module, String rootPackage) {
        JavaClasses classes = importMainClasses(module);
        Set<String> known = KNOWN_CYCLES.get(module);
        if (known == null) {
            // Classes in the root package itself (e.g. Main) belong to no slice: the root may wire packages together.
            slices().matching(rootPackage + ".(*)..").should().beFreeOfCycles().allowEmptyShould(true).check(classes);
            return;
        }
        Set<String> inCycles = PackageGraph.of(classes, rootPackage).packagesInCycles();
        assertThat(inCycles)
                .as("packages of %s in a package cycle; the list in KNOWN_CYCLES may only shrink", module)
                .containsExactlyInAnyOrderElementsOf(known);
    }

    private static JavaClasses importMainClasses(String module) {
        Path dir = REPO.resolve(module).resolve("target/classes");
        assertThat(Files.isDirectory(dir)).as(dir + " (build the module first)").isTrue();
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(new ImportOption.DoNotIncludeTests())
                .withImportOption(PackageCyclesTest::isHandWritten)
                .importPath(dir);
        assertThat(classes).as("classes of " + module).isNotEmpty();
        return classes;
    }

    /** Classes that Micronaut generates mirror the hand-written ones' dependencies; leave them out. */
    private static boolean isHandWritten(Location location) {
        String uri = location.toString();
        return !uri.contains("$Definition") && !uri.contains("$Introspection") && !uri.contains("$Intercepted")
                && !uri.contains("$Exec");
    }
}
