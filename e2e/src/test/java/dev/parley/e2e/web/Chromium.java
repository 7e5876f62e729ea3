package dev.parley.e2e.web;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/** Headless Chromium with fake camera/microphone, as every browser test here uses it. */
final class Chromium {
    static final Path EXECUTABLE = Paths.get(System.getProperty("parley.chromium", "/usr/bin/chromium"));

    private Chromium() {
    }

    static boolean available() {
        return Files.isExecutable(EXECUTABLE);
    }

    static Browser launch(Playwright pw) {
        return pw.chromium().launch(new BrowserType.LaunchOptions()
            .setExecutablePath(EXECUTABLE)
            .setHeadless(true)
            .setArgs(List.of(
                "--no-sandbox", "--headless=new",
                "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                "--allow-loopback-in-peer-connection",
                "--autoplay-policy=no-user-gesture-required",
                "--auto-select-desktop-capture-source=Entire screen",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-gpu")));
    }
}
