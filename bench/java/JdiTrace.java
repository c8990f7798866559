import com.sun.jdi.Bootstrap;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;
import java.util.List;
import java.util.Map;

/**
 * bench/tracing.py's JDI side: the same method tracer as pyjdwp's jdwp.open_tracer, written on JDI.
 * Entry: the event thread is suspended, its top frame's argument values are read
 * (StackFrame.getArgumentValues), the event set resumed. Exit: nothing suspended, the return value read
 * from the event. Usage: JdiTrace PORT CLASS CALLS; prints "calls N returns N seconds S".
 */
public final class JdiTrace {
    public static void main(String[] args) throws Exception {
        AttachingConnector connector = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.name().equals("com.sun.jdi.SocketAttach")) {
                connector = c;
            }
        }
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(args[0]);
        VirtualMachine vm = connector.attach(arguments);
        long want = Long.parseLong(args[2]);
        EventRequestManager requests = vm.eventRequestManager();
        MethodEntryRequest entry = requests.createMethodEntryRequest();
        entry.addClassFilter(args[1]);
        entry.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        entry.enable();
        MethodExitRequest exit = requests.createMethodExitRequest();
        exit.addClassFilter(args[1]);
        exit.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        exit.enable();
        long calls = 0;
        long returns = 0;
        long argumentsRead = 0;
        long start = System.nanoTime();
        vm.resume();
        outer:
        while (calls < want) {
            EventSet set = vm.eventQueue().remove();
            for (Event event : set) {
                if (event instanceof MethodEntryEvent) {
                    List<Value> values = ((MethodEntryEvent) event).thread().frame(0).getArgumentValues();
                    argumentsRead += values.size();
                    calls++;
                } else if (event instanceof MethodExitEvent) {
                    Value value = ((MethodExitEvent) event).returnValue();
                    returns += value == null ? 0 : 1;
                } else if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
                    break outer;
                }
            }
            set.resume();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.println("calls " + calls + " returns " + returns + " arguments " + argumentsRead
                + " seconds " + seconds);
        vm.dispose();
    }
}
