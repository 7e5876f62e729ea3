package dev.parley.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The cycle finder itself, on the classes of this test source tree. */
class PackageGraphTest {

    @Test
    void sliceIsTheFirstPackageBelowTheRoot() {
        assertThat(PackageGraph.sliceOf("dev.parley.sfu.routing.rtcp", "dev.parley.sfu")).isEqualTo("routing");
        assertThat(PackageGraph.sliceOf("dev.parley.sfu", "dev.parley.sfu")).isNull();
        assertThat(PackageGraph.sliceOf("dev.parley.sfux.a", "dev.parley.sfu")).isNull();
    }

    @Test
    void findsATwoPackageCycleAndNothingElse() {
        var classes = new com.tngtech.archunit.core.importer.ClassFileImporter().importClasses(
                dev.parley.architecture.fixture.a.A.class, dev.parley.architecture.fixture.b.B.class,
                dev.parley.architecture.fixture.c.C.class);
        assertThat(PackageGraph.of(classes, "dev.parley.architecture.fixture").packagesInCycles())
                .containsExactlyInAnyOrder("a", "b");
    }
}
