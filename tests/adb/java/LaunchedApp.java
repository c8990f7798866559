import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * Debuggee for tests/adb's launch stand-ins: an "app" started by the stand-in am, waiting for a debugger.
 *
 * Mode "settle" plays Debug.waitForDebugger() (frameworks/base android.os.Debug): poll every 200 ms until
 * the first non-DDM packet (the stand-in adbconnection writes "connected" on stdin), then wait until 1.3 s
 * pass without a debugger command ("activity" lines), then run. Mode "suspended" is started with the
 * agent's suspend=y, as am start -D --suspend (API 34+) makes ART send VM_START(ALL): it just runs.
 */
public class LaunchedApp {
    static volatile boolean connected;
    static volatile long lastActivity = System.nanoTime();

    static int onCreate(int seed) {
        int created = seed * 2; // launch: first line of start-up code
        System.out.println("app created " + created);
        return created;
    }

    static void readDebuggerNews() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("connected")) {
                    connected = true;
                }
                lastActivity = System.nanoTime();
            }
        } catch (Exception e) {
            // the stand-in went away: nothing more will come
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("settle")) {
            Thread news = new Thread(LaunchedApp::readDebuggerNews, "debugger-news");
            news.setDaemon(true);
            news.start();
            while (!connected) {
                Thread.sleep(200);
            }
            while (System.nanoTime() - lastActivity < 1_300_000_000L) {
                Thread.sleep(200);
            }
        }
        onCreate(21);
        while (true) {
            Thread.sleep(100);
        }
    }
}
