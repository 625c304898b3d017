/* mdae_fmi3.c - the FMI 3.0 API (Model Exchange and Co-Simulation) over mdae_fmu_core.c.
 *
 * Every variable of a mechdae FMU is a Float64; the other types' getters and setters accept
 * empty requests only. Scheduled Execution, clocks and directional derivatives are not
 * offered (modelDescription.xml says so). */
#include "fmi3Functions.h"
#include "mdae_fmu.h"

#include <stdlib.h>
#include <string.h>

#define M ((mdae_fmu *)instance)

typedef struct { fmi3LogMessageCallback log; void *env; } log3_env;

static void log_fmi3(void *env, const char *instance, int status, const char *category,
                 const char *message)
{
    log3_env *e = (log3_env *)env;
    (void)instance;
    if (e && e->log) e->log(e->env, (fmi3Status)status, category, message);
}

static fmi3Instance instantiate(fmi3String name, fmi3String token, int cs, fmi3Boolean logging,
                                fmi3InstanceEnvironment env, fmi3LogMessageCallback log)
{
    log3_env *e = (log3_env *)calloc(1, sizeof *e);
    mdae_fmu *m;
    if (!e) return NULL;
    e->log = log; e->env = env;
    m = mdae_fmu_new(name, token, cs, log_fmi3, e, logging);
    if (!m) free(e);
    return m;
}

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn,
                               size_t nCategories, const fmi3String categories[])
{
    (void)nCategories; (void)categories;
    M->logging = loggingOn;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                          fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    (void)resourcePath; (void)visible;
#if MDAE_ME
    return instantiate(instanceName, instantiationToken, 0, loggingOn, instanceEnvironment,
                       logMessage);
#else
    if (logMessage) logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                               "this FMU was exported for Co-Simulation only");
    (void)instanceName; (void)instantiationToken; (void)loggingOn;
    return NULL;
#endif
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)resourcePath; (void)visible; (void)eventModeUsed; (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables; (void)nRequiredIntermediateVariables;
    (void)intermediateUpdate;
#if MDAE_CS
    return instantiate(instanceName, instantiationToken, 1, loggingOn, instanceEnvironment,
                       logMessage);
#else
    if (logMessage) logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                               "this FMU was exported for Model Exchange only");
    (void)instanceName; (void)instantiationToken; (void)loggingOn;
    return NULL;
#endif
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName,
    fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName; (void)instantiationToken; (void)resourcePath; (void)visible;
    (void)loggingOn; (void)clockUpdate; (void)lockPreemption; (void)unlockPreemption;
    if (logMessage) logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                               "Scheduled Execution is not offered by mechdae FMUs");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance)
{
    if (!instance) return;
    free(M->env);
    mdae_fmu_free(M);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    M->r[0] = startTime;
    M->dirty = 1;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    M->initializing = 0;
    return (fmi3Status)mdae_fmu_eval(M);
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) { (void)instance; return fmi3OK; }
fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }
fmi3Status fmi3Reset(fmi3Instance instance) { mdae_fmu_reset(M); return fmi3OK; }

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    if (nValues != nValueReferences) return fmi3Error;
    return (fmi3Status)mdae_fmu_get(M, valueReferences, nValueReferences, values);
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues)
{
    if (nValues != nValueReferences) return fmi3Error;
    return (fmi3Status)mdae_fmu_set(M, valueReferences, nValueReferences, values,
                                    M->initializing);
}

/* getters and setters of the types no variable has: empty requests only */
#define NONE_GET(NAME, T) \
    fmi3Status NAME(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                    size_t nValueReferences, T values[], size_t nValues) \
    { (void)values; (void)nValues; \
      if (!nValueReferences) return fmi3OK; \
      mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError", \
                    #NAME ": value reference %u is not a variable of this type (all are Float64)", \
                    valueReferences[0]); \
      return fmi3Error; }
#define NONE_SET(NAME, T) \
    fmi3Status NAME(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                    size_t nValueReferences, const T values[], size_t nValues) \
    { (void)values; (void)nValues; \
      if (!nValueReferences) return fmi3OK; \
      mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError", \
                    #NAME ": value reference %u is not a variable of this type (all are Float64)", \
                    valueReferences[0]); \
      return fmi3Error; }
NONE_GET(fmi3GetFloat32, fmi3Float32)
NONE_GET(fmi3GetInt8, fmi3Int8)
NONE_GET(fmi3GetUInt8, fmi3UInt8)
NONE_GET(fmi3GetInt16, fmi3Int16)
NONE_GET(fmi3GetUInt16, fmi3UInt16)
NONE_GET(fmi3GetInt32, fmi3Int32)
NONE_GET(fmi3GetUInt32, fmi3UInt32)
NONE_GET(fmi3GetInt64, fmi3Int64)
NONE_GET(fmi3GetUInt64, fmi3UInt64)
NONE_GET(fmi3GetBoolean, fmi3Boolean)
NONE_GET(fmi3GetString, fmi3String)
NONE_SET(fmi3SetFloat32, fmi3Float32)
NONE_SET(fmi3SetInt8, fmi3Int8)
NONE_SET(fmi3SetUInt8, fmi3UInt8)
NONE_SET(fmi3SetInt16, fmi3Int16)
NONE_SET(fmi3SetUInt16, fmi3UInt16)
NONE_SET(fmi3SetInt32, fmi3Int32)
NONE_SET(fmi3SetUInt32, fmi3UInt32)
NONE_SET(fmi3SetInt64, fmi3Int64)
NONE_SET(fmi3SetUInt64, fmi3UInt64)
NONE_SET(fmi3SetBoolean, fmi3Boolean)
NONE_SET(fmi3SetString, fmi3String)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues)
{
    (void)instance; (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    return nValueReferences ? fmi3Error : fmi3OK;
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    (void)instance; (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    return nValueReferences ? fmi3Error : fmi3OK;
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[])
{
    (void)instance; (void)valueReferences; (void)values;
    return nValueReferences ? fmi3Error : fmi3OK;
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[])
{
    (void)instance; (void)valueReferences; (void)values;
    return nValueReferences ? fmi3Error : fmi3OK;
}

static fmi3Status not_offered(fmi3Instance instance, const char *what)
{
    if (instance) mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError", "%s is not offered by "
                                "this FMU (see its modelDescription.xml capabilities)", what);
    return fmi3Error;
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference; (void)nDependencies;
    return not_offered(instance, "fmi3GetNumberOfVariableDependencies");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
    (void)dependent; (void)elementIndicesOfDependent; (void)independents;
    (void)elementIndicesOfIndependents; (void)dependencyKinds; (void)nDependencies;
    return not_offered(instance, "fmi3GetVariableDependencies");
}

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    double *buf = (double *)(*FMUState ? *FMUState
                             : malloc(mdae_fmu_state_size() * sizeof(double)));
    if (!buf) return fmi3Error;
    mdae_fmu_state_save(M, buf);
    *FMUState = buf;
    return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    if (!FMUState) return fmi3Error;
    mdae_fmu_state_load(M, (const double *)FMUState);
    return fmi3OK;
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    (void)instance;
    if (FMUState) { free(*FMUState); *FMUState = NULL; }
    return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t *size)
{
    (void)instance; (void)FMUState;
    *size = mdae_fmu_state_size() * sizeof(double);
    return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size)
{
    (void)instance;
    if (size != mdae_fmu_state_size() * sizeof(double) || !FMUState) return fmi3Error;
    memcpy(serializedState, FMUState, size);
    return fmi3OK;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState)
{
    (void)instance;
    if (size != mdae_fmu_state_size() * sizeof(double)) return fmi3Error;
    if (!*FMUState) *FMUState = malloc(size);
    if (!*FMUState) return fmi3Error;
    memcpy(*FMUState, serializedState, size);
    return fmi3OK;
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
    const fmi3ValueReference unknowns[], size_t nUnknowns, const fmi3ValueReference knowns[],
    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed, fmi3Float64 sensitivity[],
    size_t nSensitivity)
{
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed;
    (void)sensitivity; (void)nSensitivity;
    return not_offered(instance, "fmi3GetDirectionalDerivative");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance,
    const fmi3ValueReference unknowns[], size_t nUnknowns, const fmi3ValueReference knowns[],
    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed, fmi3Float64 sensitivity[],
    size_t nSensitivity)
{
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed;
    (void)sensitivity; (void)nSensitivity;
    return not_offered(instance, "fmi3GetAdjointDerivative");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
    return not_offered(instance, "configuration mode (no structural parameters)");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
    return not_offered(instance, "configuration mode (no structural parameters)");
}

#define NO_CLOCKS(NAME, ARGS, VOIDS) \
    fmi3Status NAME ARGS { VOIDS; return not_offered(instance, #NAME " (no clocks)"); }
NO_CLOCKS(fmi3GetIntervalDecimal, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, fmi3Float64 intervals[], fmi3IntervalQualifier q[]),
          (void)vr; (void)n; (void)intervals; (void)q)
NO_CLOCKS(fmi3GetIntervalFraction, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, fmi3UInt64 c[], fmi3UInt64 r[], fmi3IntervalQualifier q[]),
          (void)vr; (void)n; (void)c; (void)r; (void)q)
NO_CLOCKS(fmi3GetShiftDecimal, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, fmi3Float64 shifts[]), (void)vr; (void)n; (void)shifts)
NO_CLOCKS(fmi3GetShiftFraction, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, fmi3UInt64 c[], fmi3UInt64 r[]), (void)vr; (void)n; (void)c; (void)r)
NO_CLOCKS(fmi3SetIntervalDecimal, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, const fmi3Float64 intervals[]), (void)vr; (void)n; (void)intervals)
NO_CLOCKS(fmi3SetIntervalFraction, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, const fmi3UInt64 c[], const fmi3UInt64 r[]),
          (void)vr; (void)n; (void)c; (void)r)
NO_CLOCKS(fmi3SetShiftDecimal, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, const fmi3Float64 shifts[]), (void)vr; (void)n; (void)shifts)
NO_CLOCKS(fmi3SetShiftFraction, (fmi3Instance instance, const fmi3ValueReference vr[],
          size_t n, const fmi3UInt64 c[], const fmi3UInt64 r[]),
          (void)vr; (void)n; (void)c; (void)r)
NO_CLOCKS(fmi3ActivateModelPartition, (fmi3Instance instance, fmi3ValueReference clockReference,
          fmi3Float64 activationTime), (void)clockReference; (void)activationTime)

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    int changed = 0, terminate = 0, st = MDAE_FMU_OK;
#if MDAE_NC > 0
    st = mdae_fmu_event(M, &changed, &terminate);
#else
    (void)instance;
#endif
    *discreteStatesNeedUpdate = fmi3False;
    *terminateSimulation = terminate ? fmi3True : fmi3False;
    *nominalsOfContinuousStatesChanged = fmi3False;
    *valuesOfContinuousStatesChanged = changed ? fmi3True : fmi3False;
    *nextEventTimeDefined = fmi3False;
    *nextEventTime = 0.0;
    return (fmi3Status)st;
}

/* ------------------------------------------------------------------ Model Exchange */
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation)
{
    (void)instance; (void)noSetFMUStatePriorToCurrentPoint;
    *enterEventMode = fmi3False;
    *terminateSimulation = fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    M->r[0] = time;
    M->dirty = 1;
    return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    return (fmi3Status)mdae_fmu_set_states(M, continuousStates, nContinuousStates);
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    return (fmi3Status)mdae_fmu_get_derivatives(M, derivatives, nContinuousStates);
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators)
{
    return (fmi3Status)mdae_fmu_get_indicators(M, eventIndicators, nEventIndicators);
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    return (fmi3Status)mdae_fmu_get_states(M, continuousStates, nContinuousStates);
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates)
{
    return (fmi3Status)mdae_fmu_get_nominals(M, nominals, nContinuousStates);
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    (void)instance;
    *nEventIndicators = 2 * MDAE_NC;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    (void)instance;
    *nContinuousStates = MDAE_NX;
    return fmi3OK;
}

/* ------------------------------------------------------------------ Co-Simulation */
fmi3Status fmi3EnterStepMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues)
{
    (void)valueReferences; (void)nValueReferences; (void)orders; (void)values; (void)nValues;
    return not_offered(instance, "fmi3GetOutputDerivatives");
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    int st, terminate = 0;
    (void)noSetFMUStatePriorToCurrentPoint;
    st = mdae_fmu_do_step_events(M, currentCommunicationPoint, communicationStepSize,
                                 &terminate);
    *eventHandlingNeeded = fmi3False;
    *terminateSimulation = terminate ? fmi3True : fmi3False;
    *earlyReturn = fmi3False;
    *lastSuccessfulTime = M->r[0];
    return (fmi3Status)st;
}
