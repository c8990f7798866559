/** Debuggee for tests/adb: an "app process" that stays alive and calls beat() every 50 ms. */
public class Heartbeat {
    static int beat(int n) {
        int next = n + 1;
        return next;
    }

    public static void main(String[] args) throws Exception {
        System.out.println("heartbeat ready");
        int n = 0;
        while (true) {
            n = beat(n);
            Thread.sleep(50);
        }
    }
}
