package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
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
        try {
            return new Spel(parser.parseExpression(text), method, parameterNames);
        }
        catch (ParseException ex) {
            throw new BloomGuardConfigurationException(where + ": key '" + text + "' is not valid SpEL: "
                    + ex.getMessage(), ex);
        }
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

        private final Expression expression;
        private final Method method;
        private final ParameterNameDiscoverer parameterNames;

        Spel(Expression expression, Method method, ParameterNameDiscoverer parameterNames) {
            this.expression = expression;
            this.method = method;
            this.parameterNames = parameterNames;
        }

        @Override
        Object resolve(Object target, Object[] arguments, Object result) {
            KeyExpressionRoot root = new KeyExpressionRoot(method, arguments, target);
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, arguments,
                    parameterNames);
            context.setVariable("result", result);
            return expression.getValue(context);
        }

        @Override
        boolean readsResult() {
            return expression.getExpressionString().matches(".*#result\\b.*");
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
