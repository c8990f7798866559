/** Debuggee for tests/adb: an "app process" that stays alive and calls beat() every 50 ms. */
public class Heartbeat {
    static int beats; // written at every beat: the field test_server_android's watchpoint watches

    static int beat(int n) {
        int next = n + 1;
        beats = next;
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
