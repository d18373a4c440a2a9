package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.ExpressionState;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * The key expression of one annotated method, compiled once when the method is first seen.
 * The common forms ({@code #id}, {@code #p0}, {@code #a0}, {@code #root.args[0]},
 * {@code #result}) become a plain array read; anything else is a SpEL expression parsed here
 * and evaluated per call against the call's arguments.
 */
abstract sealed class KeyExpression {

    private static final Pattern ARGUMENT_INDEX = Pattern.compile("#(?:p|a|root\\.args\\[)(\\d+)\\]?");
    private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");
    private static final Pattern INDEX_VARIABLE = Pattern.compile("[pa](\\d+)");

    /**
     * @param resultAllowed whether {@code #result} may be used (only after the method ran)
     * @throws BloomGuardConfigurationException naming {@code where} when the expression cannot work
     */
    static KeyExpression compile(String expression, Method method, boolean resultAllowed, String where,
            SpelExpressionParser parser, ParameterNameDiscoverer parameterNames) {
        String text = expression == null ? "" : expression.trim();
        if (text.isEmpty()) {
            throw new BloomGuardConfigurationException(where + ": key expression must not be empty");
        }
        if (!resultAllowed && text.matches(".*#result\\b.*")) {
            throw new BloomGuardConfigurationException(where + ": key '" + text
                    + "' uses #result, which only @BloomPut has (the method has not run when @BloomGuard checks)");
        }
        int parameterCount = method.getParameterCount();
        Matcher index = ARGUMENT_INDEX.matcher(text);
        if (index.matches() && (text.startsWith("#root.args[") == text.endsWith("]"))) {
            int position = Integer.parseInt(index.group(1));
            if (position >= parameterCount) {
                throw new BloomGuardConfigurationException(where + ": key '" + text + "' refers to argument "
                        + position + " but the method has " + parameterCount + " parameter(s)");
            }
            return new Argument(position);
        }
        Matcher variable = VARIABLE.matcher(text);
        if (variable.matches()) {
            String name = variable.group(1);
            if (name.equals("result")) {
                return new Result();
            }
            String[] names = parameterNames.getParameterNames(method);
            int position = names == null ? -1 : Arrays.asList(names).indexOf(name);
            if (position < 0) {
                throw new BloomGuardConfigurationException(where + ": key '" + text + "' names no parameter; parameters are "
                        + (names == null ? "unknown (compile with -parameters, or use #p0)" : Arrays.toString(names)));
            }
            return new Argument(position);
        }
        SpelExpression parsed;
        try {
            parsed = parser.parseRaw(text);
        }
        catch (ParseException ex) {
            throw new BloomGuardConfigurationException(where + ": key '" + text + "' is not valid SpEL: "
                    + ex.getMessage(), ex);
        }
        List<SpelNode> concatenated = new ArrayList<>();
        checkVariables(parsed.getAST(), text, method, resultAllowed, where, parameterNames, concatenated);
        return new Spel(parsed, method, parameterNames, concatenated);
    }

    /**
     * Every {@code #name} of a compound expression must be a parameter, an argument index the method
     * has, {@code #root}, {@code #this} or ({@code @BloomPut} only) {@code #result}: SpEL would read
     * any other name as null, and {@code 'u:' + #idd} would become the key {@code "u:null"} on every
     * call. Also collects the operands of string concatenations, which must not be null at run time.
     */
    private static void checkVariables(SpelNode node, String text, Method method, boolean resultAllowed, String where,
            ParameterNameDiscoverer parameterNames, List<SpelNode> concatenated) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            checkVariable(name, text, method, resultAllowed, where, parameterNames);
        }
        if (node instanceof OpPlus && node.getChildCount() == 2) {
            concatenated.add(node.getChild(0));
            concatenated.add(node.getChild(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            checkVariables(node.getChild(i), text, method, resultAllowed, where, parameterNames, concatenated);
        }
    }

    private static void checkVariable(String name, String text, Method method, boolean resultAllowed, String where,
            ParameterNameDiscoverer parameterNames) {
        if (name.equals("root") || name.equals("this")) {
            return;
        }
        if (name.equals("result")) {
            if (!resultAllowed) {
                throw new BloomGuardConfigurationException(where + ": key '" + text
                        + "' uses #result, which only @BloomPut has (the method has not run when @BloomGuard checks)");
            }
            return;
        }
        Matcher index = INDEX_VARIABLE.matcher(name);
        if (index.matches()) {
            int position = Integer.parseInt(index.group(1));
            if (position >= method.getParameterCount()) {
                throw new BloomGuardConfigurationException(where + ": key '" + text + "' uses #" + name
                        + ", but the method has " + method.getParameterCount() + " parameter(s)");
            }
            return;
        }
        String[] names = parameterNames.getParameterNames(method);
        if (names == null || !Arrays.asList(names).contains(name)) {
            throw new BloomGuardConfigurationException(where + ": key '" + text + "' uses #" + name
                    + ", which names no parameter; available: " + available(method, names, resultAllowed)
                    + (names == null ? " (parameter names are unknown: compile with -parameters)" : ""));
        }
    }

    private static String available(Method method, String[] names, boolean resultAllowed) {
        List<String> available = new ArrayList<>();
        for (int i = 0; i < method.getParameterCount(); i++) {
            if (names != null && i < names.length) {
                available.add("#" + names[i]);
            }
            available.add("#p" + i);
            available.add("#a" + i);
        }
        available.add("#root");
        if (resultAllowed) {
            available.add("#result");
        }
        return String.join(", ", available);
    }

    /** The key for one call; {@code result} is null for a check. */
    abstract Object resolve(Object target, Object[] arguments, Object result);

    /** The declared type of a key that is a parameter or {@code #result} as is; null when only the call can tell. */
    Class<?> declaredType(Method method) {
        return null;
    }

    /** Whether the key is read from {@code #result}, so that a null result has no key. */
    boolean readsResult() {
        return false;
    }

    private static final class Argument extends KeyExpression {

        private final int position;

        Argument(int position) {
            this.position = position;
        }

        @Override
        Object resolve(Object target, Object[] arguments, Object result) {
            return arguments[position];
        }

        @Override
        Class<?> declaredType(Method method) {
            return method.getParameterTypes()[position];
        }
    }

    private static final class Result extends KeyExpression {

        @Override
        Object resolve(Object target, Object[] arguments, Object result) {
            return result;
        }

        @Override
        Class<?> declaredType(Method method) {
            return method.getReturnType();
        }

        @Override
        boolean readsResult() {
            return true;
        }
    }

    private static final class Spel extends KeyExpression {

        private final SpelExpression expression;
        private final Method method;
        private final ParameterNameDiscoverer parameterNames;
        private final List<SpelNode> concatenated;

        Spel(SpelExpression expression, Method method, ParameterNameDiscoverer parameterNames,
                List<SpelNode> concatenated) {
            this.expression = expression;
            this.method = method;
            this.parameterNames = parameterNames;
            this.concatenated = List.copyOf(concatenated);
        }

        @Override
        Object resolve(Object target, Object[] arguments, Object result) {
            KeyExpressionRoot root = new KeyExpressionRoot(method, arguments, target);
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, arguments,
                    parameterNames);
            context.setVariable("result", result);
            Object key = expression.getValue(context);
            if (key instanceof String text && !concatenated.isEmpty() && text.contains("null")) {
                rejectNullParts(context);
            }
            return key;
        }

        /**
         * SpEL concatenates null as the text {@code "null"}: a key formed that way matches no row,
         * so it must be refused, not checked. Only a result that contains that text is looked at again.
         */
        private void rejectNullParts(MethodBasedEvaluationContext context) {
            ExpressionState state = new ExpressionState(context);
            for (SpelNode part : concatenated) {
                if (part.getValue(state) == null) {
                    throw new NullPart(part.toStringAST() + " is null, so the key cannot be formed");
                }
            }
        }

        @Override
        boolean readsResult() {
            return expression.getExpressionString().matches(".*#result\\b.*");
        }
    }

    /** A part of a concatenated key that is null: its message names the part as written, never a value. */
    static final class NullPart extends EvaluationException {

        NullPart(String message) {
            super(message);
        }
    }

    /** {@code #root} of a key expression: {@code #root.args}, {@code #root.method}, {@code #root.target}. */
    public record KeyExpressionRoot(Method method, Object[] args, Object target) {

        public Method getMethod() {
            return method;
        }

        public Object[] getArgs() {
            return args;
        }

        public Object getTarget() {
            return target;
        }
    }
}
